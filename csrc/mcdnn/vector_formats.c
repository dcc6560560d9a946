/* The vectorised int8 layout MCDNN_TENSOR_NCHW_VECT_C: an element of INT8x4, UINT8x4 or INT8x32 data is a
 * vector of 4 or 32 consecutive channels, so memory is N x C/v x spatial… x v bytes. Dims stay the logical
 * ones (C counts channels, a multiple of v); strides count vectors, the channel stride stepping from one
 * vector of channels to the next. Vector types go only with VECT_C and VECT_C only with vector types. */
#include "mcdnn_internal.h"

int opemu_mcdnn_vector_length(int dataType)
{
    switch (dataType) {
    case MCDNN_DATA_INT8x4: case MCDNN_DATA_UINT8x4: return 4;
    case MCDNN_DATA_INT8x32: return 32;
    }
    return 1;
}

mcdnnStatus_t opemu_mcdnn_vect_check(int dataType, int format, int nbDims, const int *dims, const char *api)
{
    int v = opemu_mcdnn_vector_length(dataType);
    if (format == MCDNN_TENSOR_NCHW_VECT_C && v == 1)
        return MORE_BAD("%s: MCDNN_TENSOR_NCHW_VECT_C needs MCDNN_DATA_INT8x4, MCDNN_DATA_UINT8x4 or "
                        "MCDNN_DATA_INT8x32 data, not mcdnnDataType_t %d", api, dataType);
    if (v > 1 && format != MCDNN_TENSOR_NCHW_VECT_C)
        return MORE_BAD("%s: vector data type %d needs the MCDNN_TENSOR_NCHW_VECT_C format", api, dataType);
    return opemu_mcdnn_vect_channels(dataType, nbDims, dims, api);
}

mcdnnStatus_t opemu_mcdnn_vect_channels(int dataType, int nbDims, const int *dims, const char *api)
{
    int v = opemu_mcdnn_vector_length(dataType);
    if (v > 1 && nbDims > 1 && dims[1] % v)
        return MORE_BAD("%s: %d channels are not a whole number of vectors of %d", api, dims[1], v);
    return MCDNN_STATUS_SUCCESS;
}

mcdnnStatus_t opemu_mcdnn_vect_strides(int dataType, int nbDims, const int *dims, int *strides, const char *api)
{
    mcdnnStatus_t rc = opemu_mcdnn_vect_check(dataType, MCDNN_TENSOR_NCHW_VECT_C, nbDims, dims, api);
    if (rc)
        return rc;
    long long s = 1;
    for (int i = nbDims - 1; i >= 0; i--) {
        strides[i] = (int)s;
        long long extent = i == 1 ? dims[1] / opemu_mcdnn_vector_length(dataType) : dims[i];
        s *= extent > 0 ? extent : 1;
    }
    return MCDNN_STATUS_SUCCESS;
}

long long opemu_mcdnn_vect_extent(int dataType, int axis, int dim)
{
    int v = opemu_mcdnn_vector_length(dataType);
    return axis == 1 ? ((long long)dim + v - 1) / v : dim;
}
