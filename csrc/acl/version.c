/* Package versions (aclsysGetVersionStr/Num, aclsysGetCANNVersion).
 *
 * As the vendor's runtime does, a package's version is the `Version=` line of
 * $ASCEND_HOME_PATH/share/info/<package>/version.info ('-' and '_' in the name interchangeable).
 * Without that file opemu answers for the one package it is, the runtime, with the release its
 * headers match; any other package is not installed (ACL_ERROR_INVALID_FILE, as the vendor's). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "acl/acl.h"
#include "core/core.h"

#define RUNTIME_RELEASE "9.1.0" /* hicann/runtime's release (set_cann_package npu-runtime) */

/* The version string of `package`, or NULL. `out` holds ACL_PKG_VERSION_MAX_SIZE bytes. */
static const char *read_version_file(const char *package, char *out)
{
    const char *home = getenv("ASCEND_HOME_PATH");
    if (home == NULL || strlen(package) > 200)
        return NULL;
    char path[4096];
    snprintf(path, sizeof path, "%s/share/info/%s/version.info", home, package);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char line[512];
    const char *found = NULL;
    while (found == NULL && fgets(line, sizeof line, f)) {
        char *key = strstr(line, "Version=");
        if (key == NULL)
            continue;
        char *value = key + strlen("Version="), *end = value + strlen(value);
        while (end > value && isspace((unsigned char)end[-1]))
            *--end = 0;
        while (isspace((unsigned char)*value))
            value++;
        if (*value && strlen(value) < ACL_PKG_VERSION_MAX_SIZE) {
            strcpy(out, value);
            found = out;
        }
    }
    fclose(f);
    return found;
}

static const char *package_version(const char *package, char *out)
{
    char other[256];
    snprintf(other, sizeof other, "%s", package);
    int swapped = 0;
    for (char *c = other; *c; c++)
        if (*c == '-' || *c == '_') {
            *c = *c == '-' ? '_' : '-';
            swapped = 1;
        }
    const char *v = read_version_file(package, out);
    if (v == NULL && swapped)
        v = read_version_file(other, out);
    if (v == NULL && strcmp(package, "runtime") == 0)
        v = strcpy(out, RUNTIME_RELEASE);
    return v;
}

static aclError version_of(const char *pkgName, char *out, const char *api)
{
    if (package_version(pkgName, out) == NULL)
        return opemu_fail(ACL_ERROR_INVALID_FILE, "%s: no version information for package [%s]: it is not "
                          "installed (opemu provides \"runtime\")", api, pkgName);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclsysGetVersionStr(char *pkgName, char *versionStr)
{
    if (versionStr == NULL || pkgName == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionStr: pkgName and versionStr must not be null");
    char v[ACL_PKG_VERSION_MAX_SIZE];
    int rc = version_of(pkgName, v, "aclsysGetVersionStr");
    if (rc == ACL_SUCCESS)
        strcpy(versionStr, v);
    return rc;
}

/* The vendor's number: major*10^7 + minor*10^5 + patch*10^3, less 300/200/100 for an alpha, beta
 * or rc prerelease plus its number (8.5.0 -> 80500000, 8.5.0.rc2 -> 80499902). */
static int version_number(const char *text, int32_t *number)
{
    char *end;
    long part[3];
    const char *p = text;
    for (int i = 0; i < 3; i++) {
        if (!isdigit((unsigned char)*p))
            return -1;
        part[i] = strtol(p, &end, 10);
        if (part[i] > 99 || (i < 2 && *end != '.'))
            return -1;
        p = i < 2 ? end + 1 : end;
    }
    long value = part[0] * 10000000L + part[1] * 100000L + part[2] * 1000L;
    if (*p) {
        static const struct { const char *word; long weight; } pre[] = {{"alpha", 300}, {"beta", 200}, {"rc", 100}};
        if (*p == '.' || *p == '-' || *p == '_')
            p++;
        size_t i = 0;
        while (i < 3 && strncasecmp(p, pre[i].word, strlen(pre[i].word)) != 0)
            i++;
        if (i == 3)
            return -1;
        p += strlen(pre[i].word);
        long n = 0;
        if (*p) {
            n = strtol(p, &end, 10);
            if (*end || n < 0 || n >= 100)
                return -1;
        }
        value += n - pre[i].weight;
    }
    *number = (int32_t)value;
    return 0;
}

OPEMU_EXPORT aclError aclsysGetVersionNum(char *pkgName, int32_t *versionNum)
{
    if (versionNum == NULL || pkgName == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetVersionNum: pkgName and versionNum must not be null");
    char v[ACL_PKG_VERSION_MAX_SIZE];
    int rc = version_of(pkgName, v, "aclsysGetVersionNum");
    if (rc)
        return rc;
    if (version_number(v, versionNum) != 0)
        return opemu_fail(ACL_ERROR_INTERNAL_ERROR, "aclsysGetVersionNum: version [%s] of [%s] is not X.Y.Z[rcN]", v,
                          pkgName);
    return ACL_SUCCESS;
}

OPEMU_EXPORT aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version)
{
    static const char *const packages[] = {"runtime", "runtime", "bisheng-compiler", "hccl", "oam-tools",
                                           "ops-legacy", "ops-legacy", "driver"};
    if (version == NULL)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: version is null");
    if ((unsigned)name > ACL_PKG_NAME_DRIVER)
        return opemu_fail(ACL_ERROR_INVALID_PARAM, "aclsysGetCANNVersion: invalid package name %d", (int)name);
    char v[ACL_PKG_VERSION_MAX_SIZE];
    int rc = version_of(packages[name], v, "aclsysGetCANNVersion");
    if (rc)
        return rc;
    memset(version, 0, sizeof *version);
    snprintf(version->version, sizeof version->version, "%s", v);
    /* the dotted parts, missing ones "0" */
    char *fields[4] = {version->majorVersion, version->minorVersion, version->releaseVersion, version->patchVersion};
    const char *p = v;
    for (int i = 0; i < 4; i++) {
        size_t n = *p ? strcspn(p, ".") : 0;
        snprintf(fields[i], ACL_PKG_VERSION_PARTS_MAX_SIZE, "%.*s", (int)(n ? n : 1), n ? p : "0");
        p += n + (p[n] == '.');
    }
    return ACL_SUCCESS;
}
