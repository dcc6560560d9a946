/* What the installed CANN offers (acl_base_rt.h): aclGetCannAttribute(List) and
 * aclGetDeviceCapability.
 *
 * An attribute is available when the runtime is recent enough for it (swFeatureList.json: BF16 and
 * INF_NAN from 7.1, JIT_COMPILE from 6.4; opemu's runtime is 9.1) and, for the chip-bound ones, the
 * SoC's platform file says so (support_bf16 / support_inf_nan = 1: the Atlas A2 and A3 parts and the
 * 950 line; the 910, 310P and 310B parts have neither). The list is the available attributes; an
 * attribute outside the enum is ACL_ERROR_INVALID_PARAM. Device capabilities are the platform file's
 * core counts and L2 size, the figures aclrtGetDeviceInfo reports. */
#include <string.h>
#include "aclop.h"

static int soc_has_bf16_and_inf_nan(void)
{
    static const char *const parts[] = {"Ascend910B", "Ascend910_93", "Ascend950", "Ascend910_95", "Ascend910_96"};
    const char *soc = opemu_soc_name();
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strncmp(soc, parts[i], strlen(parts[i])) == 0)
            return 1;
    return 0;
}

static int available(aclCannAttr attr)
{
    return attr == ACL_CANN_ATTR_JIT_COMPILE ||
           ((attr == ACL_CANN_ATTR_BF16 || attr == ACL_CANN_ATTR_INF_NAN) && soc_has_bf16_and_inf_nan());
}

OPEMU_EXPORT aclError aclGetCannAttributeList(const aclCannAttr **cannAttrList, size_t *num)
{
    if (cannAttrList == NULL)
        return OPEMU_ACL_CHECK_NULL("cannAttrList");
    if (num == NULL)
        return OPEMU_ACL_CHECK_NULL("num");
    static const aclCannAttr all[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};
    static __thread aclCannAttr list[3];
    size_t n = 0;
    for (size_t i = 0; i < 3; i++)
        if (available(all[i]))
            list[n++] = all[i];
    *cannAttrList = list;
    *num = n;
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclGetCannAttribute(aclCannAttr cannAttr, int32_t *value)
{
    if (value == NULL)
        return OPEMU_ACL_CHECK_NULL("value");
    if (cannAttr != ACL_CANN_ATTR_INF_NAN && cannAttr != ACL_CANN_ATTR_BF16 && cannAttr != ACL_CANN_ATTR_JIT_COMPILE)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "find cann attr failed, attr value = %d", (int)cannAttr);
    *value = available(cannAttr);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)
{
    if (value == NULL)
        return OPEMU_ACL_CHECK_NULL("value");
    if (deviceId >= (uint32_t)opemu_device_count())
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclGetDeviceCapability failed because deviceId %u greater than "
                          "deviceNum %d.", deviceId, opemu_device_count());
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM:
        return aclrtGetDeviceInfo(deviceId, ACL_DEV_ATTR_AICORE_CORE_NUM, value);
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
        return aclrtGetDeviceInfo(deviceId, ACL_DEV_ATTR_VECTOR_CORE_NUM, value);
    case ACL_DEVICE_INFO_L2_SIZE:
        return aclrtGetDeviceInfo(deviceId, ACL_DEV_ATTR_L2_CACHE_SIZE, value);
    default:
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "get device info failed, invalid info type = %d", (int)deviceInfo);
    }
}
