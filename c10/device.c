/* c10/device.c -- device names and parsing. */
#include <ctorch/device.h>
#include <ctorch/error.h>

#include <stdlib.h>
#include <string.h>

static const char *const device_names[CT_DEVICE_TYPE_COUNT] = {
#define X(E, N) [E] = N,
    CT_FORALL_DEVICE_TYPES(X)
#undef X
};

const char *
ct_device_type_name(ct_device_type t)
{
    return device_names[t];
}

/* torch's grammar: a type made of letters and '_', then optionally ':'
 * and an index without leading zeros. */
int
ct_device_parse(const char *s, ct_device *out)
{
    size_t len = 0;

    if (*s == '\0') {
        return ct_error(CT_ERR_RUNTIME, "Device string must not be empty");
    }
    while ((s[len] >= 'a' && s[len] <= 'z') || (s[len] >= 'A' && s[len] <= 'Z') ||
           s[len] == '_') {
        len++;
    }
    const char *rest = s + len;
    long idx = -1;
    if (len == 0 || (*rest != '\0' && *rest != ':')) {
        return ct_error(CT_ERR_RUNTIME, "Invalid device string: '%s'", s);
    }
    if (*rest == ':') {
        const char *digits = rest + 1;
        char *end;
        if (*digits < '0' || *digits > '9' || (digits[0] == '0' && digits[1] != '\0')) {
            return ct_error(CT_ERR_RUNTIME, "Invalid device string: '%s'", s);
        }
        idx = strtol(digits, &end, 10);
        if (*end != '\0' || idx > 127) {
            return ct_error(CT_ERR_RUNTIME, "Invalid device string: '%s'", s);
        }
    }
    for (int i = 0; i < CT_DEVICE_TYPE_COUNT; i++) {
        if (strlen(device_names[i]) == len && strncmp(s, device_names[i], len) == 0) {
            out->type = (ct_device_type)i;
            out->index = (int)idx;
            return 0;
        }
    }
    return ct_error(CT_ERR_RUNTIME,
                    "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, "
                    "ideep, hip, ve, fpga, ort, xla, lazy, vulkan, mps, meta, hpu, "
                    "privateuseone device type at start of device string: %s", s);
}
