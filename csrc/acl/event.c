/* AscendCL's event APIs: create, record, reset, query, synchronise, wait, timestamps and elapsed
 * time. The events and their tasks are core's (core/event.c); these check the arguments the vendor's
 * way and answer in aclError. */
#include "acl/acl.h"
#include "core/core.h"
#include "core/device.h"
#include "core/stream.h"

static opemu_event *live_event(aclrtEvent event, const char *api, int *rc)
{
    if (event == NULL) {
        *rc = opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: event is null", api);
        return NULL;
    }
    opemu_event *e = opemu_event_live(event);
    if (e == NULL)
        *rc = opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "%s: %p is not a live event", api, event);
    return e;
}

static opemu_event_state state_of(const opemu_event *e)
{
    opemu_event_state state;
    opemu_event_info(e, &state);
    return state;
}

static aclError create_event(aclrtEvent *event, uint32_t flag, const char *api)
{
    if (event == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: event is null", api);
    if (opemu_current_context() == NULL)
        return ACL_ERROR_RT_CONTEXT_NULL;
    *event = opemu_event_new(flag);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtCreateEvent(aclrtEvent *event) { return create_event(event, 0, "aclrtCreateEvent"); }
OPEMU_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event(event, flag, "aclrtCreateEventWithFlag");
}
OPEMU_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return create_event(event, flag, "aclrtCreateEventExWithFlag");
}

OPEMU_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    int rc;
    opemu_event *e = live_event(event, "aclrtDestroyEvent", &rc);
    if (e == NULL)
        return rc;
    opemu_event_free(e);
    return ACL_SUCCESS;
}

/* The event and the stream of a record or reset; NULL with *rc set when either is not live. */
static opemu_event *event_on_stream(aclrtEvent event, aclrtStream stream, opemu_stream **s, const char *api, int *rc)
{
    opemu_event *e = live_event(event, api, rc);
    if (e == NULL)
        return NULL;
    *s = opemu_stream_resolve(stream, rc);
    return *s ? e : NULL;
}

OPEMU_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    int rc;
    opemu_stream *s;
    opemu_event *e = event_on_stream(event, stream, &s, "aclrtRecordEvent", &rc);
    return e ? opemu_event_record(e, s) : rc;
}

OPEMU_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    int rc;
    opemu_stream *s;
    opemu_event *e = event_on_stream(event, stream, &s, "aclrtResetEvent", &rc);
    return e ? opemu_event_reset(e, s) : rc;
}

/* Both query APIs answer whether the event's last record has executed. */
static aclError query_event(aclrtEvent event, void *status, const char *api, int *completed)
{
    int rc;
    opemu_event *e = live_event(event, api, &rc);
    if (e == NULL)
        return rc;
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "%s: status is null", api);
    *completed = state_of(e).completed;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    int completed = 0, rc = query_event(event, status, "aclrtQueryEvent", &completed);
    if (rc == ACL_SUCCESS)
        *status = completed ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return rc;
}

OPEMU_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    int completed = 0, rc = query_event(event, status, "aclrtQueryEventStatus", &completed);
    if (rc == ACL_SUCCESS)
        *status = completed ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return rc;
}

OPEMU_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    int rc;
    opemu_event *e = live_event(event, "aclrtSynchronizeEvent", &rc);
    return e ? opemu_event_synchronize(e) : rc;
}

OPEMU_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    if (timeout < -1)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtSynchronizeEventWithTimeout: timeout %d is below -1", timeout);
    return aclrtSynchronizeEvent(event);
}

static aclError wait_event(aclrtStream stream, aclrtEvent event, const char *api)
{
    int rc;
    opemu_event *e = live_event(event, api, &rc);
    if (e == NULL)
        return rc;
    opemu_stream *s = opemu_stream_resolve(stream, &rc);
    return s ? opemu_event_wait(s, e, api) : rc;
}

OPEMU_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return wait_event(stream, event, "aclrtStreamWaitEvent");
}

/* The timeout bounds how long the device waits; opemu's waits never block (the recording stream
 * is drained), so it cannot expire. */
OPEMU_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    if (timeout < 0)
        return opemu_fail(ACL_ERROR_RT_PARAM_INVALID, "aclrtStreamWaitEventWithTimeout: timeout %d is not in "
                          "[0, INT_MAX]", timeout);
    return wait_event(stream, event, "aclrtStreamWaitEventWithTimeout");
}

/* Complete once every wait queued on the event has run. */
OPEMU_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    int rc;
    opemu_event *e = live_event(event, "aclrtQueryEventWaitStatus", &rc);
    if (e == NULL)
        return rc;
    if (status == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtQueryEventWaitStatus: status is null");
    *status = opemu_event_waits_pending(e) > 0 ? ACL_EVENT_WAIT_STATUS_NOT_READY : ACL_EVENT_WAIT_STATUS_COMPLETE;
    return ACL_SUCCESS;
}

/* When the event's last record executed, in microseconds of the monotonic clock. */
OPEMU_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    if (timestamp == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventGetTimestamp: timestamp is null");
    int rc;
    opemu_event *e = live_event(event, "aclrtEventGetTimestamp", &rc);
    if (e == NULL)
        return rc;
    opemu_event_state state = state_of(e);
    if (!state.completed)
        return opemu_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "aclrtEventGetTimestamp: event %p has no executed "
                          "record", event);
    *timestamp = (uint64_t)(state.time_ms * 1000.0);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    int rc;
    if (ms == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclrtEventElapsedTime: ms is null");
    opemu_event *start = live_event(startEvent, "aclrtEventElapsedTime", &rc);
    if (start == NULL)
        return rc;
    opemu_event *end = live_event(endEvent, "aclrtEventElapsedTime", &rc);
    if (end == NULL)
        return rc;
    opemu_event_state first = state_of(start), last = state_of(end);
    if (!first.completed || !last.completed)
        return opemu_fail(ACL_ERROR_RT_INTERNAL_ERROR,
                          "aclrtEventElapsedTime: event recorder null: both events must have been recorded and completed");
    *ms = (float)(last.time_ms - first.time_ms);
    return ACL_SUCCESS;
}
