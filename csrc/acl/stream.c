/* AscendCL's stream APIs: creation (with a priority, flags or a configuration handle), destruction,
 * synchronisation, queries, identity and attributes. The queues themselves are core's
 * (core/stream.c); what these APIs set is kept with each stream and answered back. */
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/stream.h"

/* Stream priorities run from 0 (greatest) to 7 (least); one host thread runs every stream, so a
 * priority is recorded and reported but cannot change an order. */
#define GREATEST_PRIORITY 0
#define LEAST_PRIORITY 7
#define DEFAULT_PRIORITY 0
#define KNOWN_STREAM_FLAGS (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE | \
                            ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

OPEMU_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: stream is null");
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = opemu_stream_new(ctx, 0);
    return ACL_SUCCESS;
}

static aclError create_configured(aclrtStream *stream, uint32_t priority, uint32_t flag, const char *api)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is null", api);
    if (priority > LEAST_PRIORITY)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: priority %u is outside [%d, %d]", api, priority,
                          GREATEST_PRIORITY, LEAST_PRIORITY);
    if (flag & ~(uint32_t)KNOWN_STREAM_FLAGS)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: flag 0x%x has bits no ACL_STREAM_* flag names", api, flag);
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    opemu_stream *s = opemu_stream_new(ctx, 0);
    opemu_stream_settings *settings = opemu_stream_settings_of(s);
    settings->priority = priority;
    settings->attributes[ACL_STREAM_ATTR_PRIORITY].streamPriority = priority;
    settings->flags = flag;
    *stream = s;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    return create_configured(stream, priority, flag, "aclrtCreateStreamWithConfig");
}

static aclError destroy_stream(aclrtStream stream, int force, const char *api)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: stream is null", api);
    if (!opemu_handle_is(stream, OPEMU_KIND_STREAM))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not a live stream", api, stream);
    opemu_stream *s = stream;
    if (opemu_stream_is_default(s))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: a default stream cannot be destroyed", api);
    if (!force)
        opemu_stream_drain(s);
    opemu_stream_release(s);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtDestroyStream(aclrtStream stream) { return destroy_stream(stream, 0, "aclrtDestroyStream"); }
OPEMU_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    return destroy_stream(stream, 1, "aclrtDestroyStreamForce");
}

OPEMU_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    return s ? opemu_stream_drain(s) : rc;
}

OPEMU_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    if (timeout < -1)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeStreamWithTimeout: timeout %d is below -1", timeout);
    return aclrtSynchronizeStream(stream);
}

OPEMU_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: status is null");
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    *status = opemu_stream_busy(s) ? ACL_STREAM_STATUS_NOT_READY : ACL_STREAM_STATUS_COMPLETE;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtSynchronizeDevice(void)
{
    opemu_context *ctx = opemu_current_context();
    return ctx ? opemu_device_drain(ctx->device) : ACL_ERROR_RT_CONTEXT_NULL;
}

OPEMU_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    if (timeout < -1)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeDeviceWithTimeout: timeout %d is below -1", timeout);
    return aclrtSynchronizeDevice();
}


/* ---- stream configuration, identity and attributes ---- */

OPEMU_EXPORT aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    aclrtStreamConfigHandle *handle = calloc(1, sizeof *handle);
    opemu_handle_add(handle, OPEMU_KIND_STREAM_CONFIG);
    return handle;
}

static aclError live_config(const aclrtStreamConfigHandle *handle, const char *api)
{
    if (handle == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: handle is null", api);
    if (!opemu_handle_is(handle, OPEMU_KIND_STREAM_CONFIG))
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not a live aclrtStreamConfigHandle", api, (void *)handle);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    int rc = live_config(handle, "aclrtDestroyStreamConfigHandle");
    if (rc)
        return rc;
    opemu_handle_remove(handle);
    free(handle);
    return ACL_SUCCESS;
}

/* Each attribute takes a value of its own type, and valueSize must be that type's size. */
OPEMU_EXPORT aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                              const void *attrValue, size_t valueSize)
{
    int rc = live_config(handle, "aclrtSetStreamConfigOpt");
    if (rc)
        return rc;
    if (attrValue == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: attrValue is null");
    static const size_t sizes[] = {sizeof(void *), sizeof(size_t), sizeof(size_t), sizeof(uint32_t)};
    if ((unsigned)attr > ACL_RT_STREAM_PRIORITY)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: invalid attribute %d", (int)attr);
    if (valueSize != sizes[attr])
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: attribute %d takes %zu bytes, not %zu",
                          (int)attr, sizes[attr], valueSize);
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR: memcpy(&handle->workptr, attrValue, sizeof handle->workptr); break;
    case ACL_RT_STREAM_WORK_SIZE: memcpy(&handle->workSize, attrValue, sizeof handle->workSize); break;
    case ACL_RT_STREAM_FLAG: memcpy(&handle->flag, attrValue, sizeof handle->flag); break;
    case ACL_RT_STREAM_PRIORITY: {
        uint32_t priority;
        memcpy(&priority, attrValue, sizeof priority);
        if (priority > LEAST_PRIORITY)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamConfigOpt: priority %u is outside [%d, %d]",
                              priority, GREATEST_PRIORITY, LEAST_PRIORITY);
        handle->priority = priority;
        break;
    }
    }
    return ACL_SUCCESS;
}

/* A null handle is the default configuration. */
OPEMU_EXPORT aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    if (handle != NULL) {
        int rc = live_config(handle, "aclrtCreateStreamV2");
        if (rc)
            return rc;
        if (handle->flag > UINT32_MAX)
            return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStreamV2: flag 0x%zx has bits no ACL_STREAM_* "
                              "flag names", handle->flag);
    }
    return create_configured(stream, handle ? handle->priority : DEFAULT_PRIORITY,
                             handle ? (uint32_t)handle->flag : 0, "aclrtCreateStreamV2");
}

/* The stream the app named, NULL meaning the current context's default stream. */
static opemu_stream *stream_arg(aclrtStream stream, const void *out, const char *api, int *rc)
{
    if (out == NULL) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: output pointer is null", api);
        return NULL;
    }
    return opemu_stream_resolve(stream, rc);
}

OPEMU_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    int rc;
    opemu_stream *s = stream_arg(stream, streamId, "aclrtStreamGetId", &rc);
    if (s)
        *streamId = opemu_stream_settings_of(s)->id;
    return s ? ACL_SUCCESS : rc;
}

OPEMU_EXPORT aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    int rc;
    opemu_stream *s = stream_arg(stream, priority, "aclrtStreamGetPriority", &rc);
    if (s)
        *priority = opemu_stream_settings_of(s)->priority;
    return s ? ACL_SUCCESS : rc;
}

OPEMU_EXPORT aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    int rc;
    opemu_stream *s = stream_arg(stream, flags, "aclrtStreamGetFlags", &rc);
    if (s)
        *flags = opemu_stream_settings_of(s)->flags;
    return s ? ACL_SUCCESS : rc;
}

OPEMU_EXPORT aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    if (leastPriority == NULL || greatestPriority == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM,
                          "aclrtDeviceGetStreamPriorityRange: leastPriority and greatestPriority must not be null");
    *leastPriority = LEAST_PRIORITY;
    *greatestPriority = GREATEST_PRIORITY;
    return ACL_SUCCESS;
}

/* Which values each attribute takes: failure mode and the switches are 0/1, a priority 0..7, the
 * user tag anything. */
static int attribute_value_ok(aclrtStreamAttr attr, const aclrtStreamAttrValue *value)
{
    switch (attr) {
    case ACL_STREAM_ATTR_FAILURE_MODE: return value->failureMode <= ACL_STOP_ON_FAILURE;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: return value->overflowSwitch <= 1;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG: return 1;
    case ACL_STREAM_ATTR_CACHE_OP_INFO: return value->cacheOpInfoSwitch <= 1;
    case ACL_STREAM_ATTR_PRIORITY: return value->streamPriority <= LEAST_PRIORITY;
    }
    return 0;
}

static opemu_stream *attribute_args(aclrtStream stream, aclrtStreamAttr attr, const aclrtStreamAttrValue *value,
                                    const char *api, int *rc)
{
    opemu_stream *s = stream_arg(stream, value, api, rc);
    if (s && (attr < ACL_STREAM_ATTR_FAILURE_MODE || attr > ACL_STREAM_ATTR_PRIORITY)) {
        *rc = opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: invalid stream attribute %d", api, (int)attr);
        return NULL;
    }
    return s;
}

OPEMU_EXPORT aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                              aclrtStreamAttrValue *value)
{
    int rc;
    opemu_stream *s = attribute_args(stream, stmAttrType, value, "aclrtSetStreamAttribute", &rc);
    if (s == NULL)
        return rc;
    if (!attribute_value_ok(stmAttrType, value))
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSetStreamAttribute: value out of range for attribute %d",
                          (int)stmAttrType);
    opemu_stream_settings *settings = opemu_stream_settings_of(s);
    settings->attributes[stmAttrType] = *value;
    if (stmAttrType == ACL_STREAM_ATTR_PRIORITY)
        settings->priority = value->streamPriority;
    return ACL_SUCCESS;
}

/* What the stream does after a task fails: go on (ACL_CONTINUE_ON_FAILURE, the default) or stop; the
 * same setting as the ACL_STREAM_ATTR_FAILURE_MODE attribute. */
OPEMU_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    int rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    if (s == NULL)
        return rc;
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetStreamFailureMode: mode %llu is neither "
                          "ACL_CONTINUE_ON_FAILURE nor ACL_STOP_ON_FAILURE", (unsigned long long)mode);
    opemu_stream_settings_of(s)->attributes[ACL_STREAM_ATTR_FAILURE_MODE].failureMode = mode;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                              aclrtStreamAttrValue *value)
{
    int rc;
    opemu_stream *s = attribute_args(stream, stmAttrType, value, "aclrtGetStreamAttribute", &rc);
    if (s == NULL)
        return rc;
    *value = opemu_stream_settings_of(s)->attributes[stmAttrType];
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    if (stream == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtCtxGetCurrentDefaultStream: stream is null");
    opemu_context *ctx = opemu_current_context();
    if (ctx == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *stream = ctx->default_stream;
    return ACL_SUCCESS;
}
