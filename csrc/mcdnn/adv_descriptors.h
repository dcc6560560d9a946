/* mcDNN objects of the RNN, CTC-loss and multi-head attention routines (csrc/mcdnn/rnn_objects.c,
 * attention_objects.c) and of the backend graph API (backend_objects.c), as the C core keeps them and the
 * embedded Python reads them (python/opemu/ops/mcdnn/). Included by bridge_api.h: plain C for pycparser.
 * `is_set` is 0 until a Set call succeeded. */
#ifndef OPEMU_MCDNN_ADV_BRIDGE_H
#define OPEMU_MCDNN_ADV_BRIDGE_H

#include <stdint.h>
#include "mcdnn/mcdnn.h"

enum opemu_kind_mcdnn_adv {
    OPEMU_KIND_MCDNN_RNN = 40,
    OPEMU_KIND_MCDNN_RNN_DATA = 41,
    OPEMU_KIND_MCDNN_CTC_LOSS = 42,
    OPEMU_KIND_MCDNN_ATTENTION = 43,
    OPEMU_KIND_MCDNN_SEQ_DATA = 44,
    OPEMU_KIND_MCDNN_BACKEND = 45
};

/* RNN descriptor (v8 fields; the v6 setters fill the same ones). `dropoutDesc` is the dropout descriptor
 * applied between layers in training, or NULL. */
struct mcdnnRNNStruct {
    int32_t is_set;
    int32_t algo;
    int32_t cellMode;
    int32_t biasMode;
    int32_t dirMode;
    int32_t inputMode;
    int32_t dataType;
    int32_t mathPrec;
    int32_t mathType;
    int32_t inputSize;
    int32_t hiddenSize;
    int32_t projSize;
    int32_t numLayers;
    uint32_t auxFlags;
    int32_t clipMode;
    int32_t clipNanOpt;
    double lclip;
    double rclip;
    void *dropoutDesc;
};

/* RNN data descriptor: the batch's sequence lengths (a copy, batchSize of them) and the fill of padded
 * outputs (`paddingFill`, of dataType, when `has_fill`). */
struct mcdnnRNNDataStruct {
    int32_t is_set;
    int32_t dataType;
    int32_t layout;
    int32_t maxSeqLength;
    int32_t batchSize;
    int32_t vectorSize;
    int32_t has_fill;
    int32_t *seqLengthArray;
    uint8_t paddingFill[8];
};

struct mcdnnCTCLossStruct {
    int32_t is_set;
    int32_t compType;
    int32_t normMode;
    int32_t gradMode;
    int32_t maxLabelLength;
};

struct mcdnnAttnStruct {
    int32_t is_set;
    uint32_t attnMode;
    int32_t nHeads;
    double smScaler;
    int32_t dataType;
    int32_t computePrec;
    int32_t mathType;
    void *attnDropoutDesc;
    void *postDropoutDesc;
    int32_t qSize;
    int32_t kSize;
    int32_t vSize;
    int32_t qProjSize;
    int32_t kProjSize;
    int32_t vProjSize;
    int32_t oProjSize;
    int32_t qoMaxSeqLength;
    int32_t kvMaxSeqLength;
    int32_t maxBatchSize;
    int32_t maxBeamSize;
};

/* Sequence data: dims indexed by mcdnnSeqDataAxis_t (TIME, BATCH, BEAM, VECT), `axes` the memory order
 * outermost first, one sequence length per batch x beam element (a copy). */
struct mcdnnSeqDataStruct {
    int32_t is_set;
    int32_t dataType;
    int32_t dimA[MCDNN_SEQDATA_DIM_COUNT];
    int32_t axes[MCDNN_SEQDATA_DIM_COUNT];
    uint64_t seqLengthArraySize;
    int32_t *seqLengthArray;
    int32_t has_fill;
    uint8_t paddingFill[8];
};

/* A backend descriptor: its type and the attributes set on it, each the bytes of `count` elements of
 * `type` (mcdnnBackendAttributeType_t). Finalize (Python) stores what it derives with
 * opemu_backend_put and marks the descriptor finalized. */
struct opemu_backend_attr {
    int32_t name;
    int32_t type;
    int64_t count;
    void *data;
};

struct opemu_backend_desc {
    int32_t type;
    int32_t finalized;
    int32_t n_attrs;
    int32_t capacity;
    struct opemu_backend_attr *attrs;
};

/* The attribute `name` of a live backend descriptor, or NULL. */
const struct opemu_backend_attr *opemu_backend_attr(const void *descriptor, int32_t name);
/* Stores (replaces) an attribute of a live backend descriptor: 0, or -1 when out of host memory. */
int opemu_backend_put(void *descriptor, int32_t name, int32_t type, int64_t count, const void *data);
/* Marks a live backend descriptor finalized. */
void opemu_backend_finalize_mark(void *descriptor);
/* A new backend descriptor of `type` made by the library (engine configurations of a heuristic), or NULL. */
void *opemu_backend_new(int32_t type);
/* Destroys one made by opemu_backend_new (or any live one). */
void opemu_backend_free(void *descriptor);

#endif
