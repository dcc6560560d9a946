/* Phase 1 without Python for a signature seen before.
 *
 * The verdict of an op's check and workspace depends only on its arguments' descriptions and the
 * product (bridge.py's _Phase1 caches it per signature). The generated phase-1 shim writes the same
 * description here as a key of int64 words: each tensor's summary, each scalar's dtype and bytes,
 * each host array's values, each plain value's bytes, and the product. When the entry point's cache
 * holds the key, the shim makes the executor from the remembered plan and returns without entering
 * Python: most of a tiny call's phase 1. Anything else (a miss, a dead handle, a NULL output
 * pointer, an injected fault, a key too long) goes to Python, which reports errors as before and,
 * after a successful plan, hands the plan's executor layout back with opemu_plan_remember.
 *
 * Only successes are remembered. A remembered plan is never forgotten (Python pins it under its id):
 * executors made from it may be repeatable and outlive any eviction, so each entry point keeps at
 * most PLANS_PER_ENTRY and later signatures take the Python path. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "aclnn_internal.h"
#include "core/core.h"

enum { PLANS_PER_ENTRY = 64 };

typedef struct {
    uint64_t hash;
    int64_t n_words;
    int64_t *words;
    uint64_t plan_id;
    uint64_t workspace;
    char op[64];
    uint64_t n_inputs, n_outputs, ir_inputs;
    int64_t n_sources, n_twins;
    int64_t *sources; /* per executor slot: is_output, slot, argument position, list item or -1, IR index */
    int64_t *twins;   /* per Ref parameter: input slot, output slot */
} remembered_plan;

struct opemu_plan_cache {
    int64_t count;
    remembered_plan *plans[PLANS_PER_ENTRY];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread opemu_plan_key *innermost; /* the key of this thread's phase 1 now in Python */

static void put(opemu_plan_key *k, int64_t word)
{
    if (k->n_words == OPEMU_PLAN_KEY_WORDS) {
        k->valid = 0;
        return;
    }
    k->words[k->n_words++] = word;
}

static void put_bytes(opemu_plan_key *k, const void *bytes, size_t n)
{
    put(k, (int64_t)n);
    for (size_t at = 0; at < n; at += 8) {
        int64_t word = 0;
        memcpy(&word, (const char *)bytes + at, n - at < 8 ? n - at : 8);
        put(k, word);
    }
}

void opemu_key_begin(opemu_plan_key *k, opemu_plan_cache **cache, const char *entry)
{
    k->n_words = 0;
    k->valid = !opemu_fault_at(entry); /* an injected fault is Python's to raise */
    k->cache = cache;
    const char *soc = getenv("OPEMU_SOC"); /* what op.soc() reads: tests and apps change it between calls */
    put_bytes(k, soc ? soc : "", soc ? strlen(soc) : 0);
}

void opemu_key_tensor(opemu_plan_key *k, const aclTensor *tensor)
{
    if (tensor == NULL) {
        put(k, 0);
        return;
    }
    if (k->n_words + 1 + OPEMU_SUMMARY_MAX > OPEMU_PLAN_KEY_WORDS) {
        k->valid = 0;
        return;
    }
    int n = opemu_tensor_summary(tensor, k->words + k->n_words + 1);
    if (n < 0) {
        k->valid = 0; /* a dead tensor: Python names it */
        return;
    }
    k->words[k->n_words] = n;
    k->n_words += n + 1;
}

/* For a handle argument: puts -1 for NULL and spoils the key for a dead one; 1 when it is live. */
static int live(opemu_plan_key *k, const void *handle, int kind)
{
    if (handle == NULL)
        put(k, -1);
    else if (!opemu_handle_is(handle, kind))
        k->valid = 0; /* Python names it */
    else
        return 1;
    return 0;
}

void opemu_key_tensor_list(opemu_plan_key *k, const aclTensorList *list)
{
    if (!live(k, list, OPEMU_KIND_TENSOR_LIST))
        return;
    put(k, (int64_t)list->size);
    for (uint64_t i = 0; i < list->size && k->valid; i++)
        opemu_key_tensor(k, list->items[i]);
}

void opemu_key_scalar(opemu_plan_key *k, const aclScalar *scalar)
{
    if (!live(k, scalar, OPEMU_KIND_SCALAR))
        return;
    put(k, scalar->dtype);
    put_bytes(k, scalar->value, sizeof scalar->value);
}

void opemu_key_scalar_list(opemu_plan_key *k, const aclScalarList *list)
{
    if (!live(k, list, OPEMU_KIND_SCALAR_LIST))
        return;
    put(k, (int64_t)list->size);
    for (uint64_t i = 0; i < list->size && k->valid; i++)
        opemu_key_scalar(k, list->items[i]);
}

/* An aclIntArray, aclFloatArray or aclBoolArray (`kind`): its values. */
void opemu_key_array(opemu_plan_key *k, const void *array, int kind)
{
    if (!live(k, array, kind))
        return;
    /* the three share their layout but for the element type */
    size_t item = kind == OPEMU_KIND_INT_ARRAY ? sizeof(int64_t) : kind == OPEMU_KIND_FLOAT_ARRAY ? sizeof(float)
                                                                                                  : sizeof(bool);
    const aclIntArray *a = array;
    if (a->size > (uint64_t)OPEMU_PLAN_KEY_WORDS * 8 / item) {
        k->valid = 0;
        return;
    }
    put_bytes(k, a->data, a->size * item);
}

void opemu_key_value(opemu_plan_key *k, const void *value, size_t n) { put_bytes(k, value, n); }

static uint64_t hash_of(const int64_t *words, int64_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int64_t i = 0; i < n; i++)
        h = (h ^ (uint64_t)words[i]) * 0x100000001b3u;
    return h ^ (h >> 29);
}

static remembered_plan *find(opemu_plan_cache *cache, const opemu_plan_key *k, uint64_t hash)
{
    for (int64_t i = 0; cache && i < cache->count; i++) {
        remembered_plan *p = cache->plans[i];
        if (p->hash == hash && p->n_words == k->n_words && !memcmp(p->words, k->words, k->n_words * sizeof *k->words))
            return p;
    }
    return NULL;
}

int opemu_plan_reuse(opemu_plan_key *k, const void *const *arguments, uint64_t *workspace_size,
                     aclOpExecutor **executor)
{
    if (!k->valid || workspace_size == NULL || executor == NULL)
        return -1;
    uint64_t hash = hash_of(k->words, k->n_words);
    pthread_mutex_lock(&lock);
    remembered_plan *p = find(*k->cache, k, hash);
    pthread_mutex_unlock(&lock);
    if (p == NULL)
        return -1; /* plans are never freed, so p stays valid outside the lock */
    aclOpExecutor *e = opemu_executor_create(p->op, p->n_inputs, p->n_outputs);
    for (int64_t i = 0; i < p->n_sources; i++) {
        const int64_t *s = p->sources + 5 * i;
        const aclTensor *tensor = arguments[s[2]];
        if (s[3] >= 0) {
            tensor = ((const aclTensorList *)arguments[s[2]])->items[s[3]];
            opemu_executor_set_list_item(e, (int)s[0], (uint64_t)s[1], (uint64_t)s[4], (uint64_t)s[3], p->ir_inputs);
        }
        if (s[0])
            opemu_executor_set_output(e, (uint64_t)s[1], tensor);
        else
            opemu_executor_set_input(e, (uint64_t)s[1], tensor);
    }
    for (int64_t i = 0; i < p->n_twins; i++)
        opemu_executor_set_ref(e, (uint64_t)p->twins[2 * i], (uint64_t)p->twins[2 * i + 1]);
    e->plan_id = p->plan_id;
    e->workspace_size = *workspace_size = p->workspace;
    *executor = e;
    return 0;
}

void opemu_key_enter(opemu_plan_key *k)
{
    k->outer = innermost;
    innermost = k;
}

void opemu_key_leave(opemu_plan_key *k) { innermost = k->outer; }

static int64_t *copy_words(const int64_t *words, int64_t n)
{
    int64_t *copy = malloc((n ? n : 1) * sizeof *copy);
    if (copy)
        memcpy(copy, words, n * sizeof *copy);
    return copy;
}

int opemu_plan_remember(uint64_t plan_id, const char *op, uint64_t workspace, uint64_t n_inputs, uint64_t n_outputs,
                        uint64_t ir_inputs, int64_t n_sources, const int64_t *sources, int64_t n_twins,
                        const int64_t *twins)
{
    opemu_plan_key *k = innermost;
    if (k == NULL || !k->valid)
        return -1;
    uint64_t hash = hash_of(k->words, k->n_words);
    pthread_mutex_lock(&lock);
    opemu_plan_cache *cache = *k->cache;
    if (cache == NULL)
        cache = *k->cache = calloc(1, sizeof *cache);
    int rc = cache == NULL || cache->count == PLANS_PER_ENTRY ? -1 : find(cache, k, hash) ? 1 : 0;
    remembered_plan *p = rc ? NULL : calloc(1, sizeof *p);
    if (p) {
        p->hash = hash;
        p->n_words = k->n_words;
        p->plan_id = plan_id;
        p->workspace = workspace;
        strncpy(p->op, op, sizeof p->op - 1);
        p->n_inputs = n_inputs;
        p->n_outputs = n_outputs;
        p->ir_inputs = ir_inputs;
        p->n_sources = n_sources;
        p->n_twins = n_twins;
        p->words = copy_words(k->words, k->n_words);
        p->sources = copy_words(sources, 5 * n_sources);
        p->twins = copy_words(twins, 2 * n_twins);
        if (p->words && p->sources && p->twins) {
            cache->plans[cache->count++] = p;
        } else {
            free(p->words);
            free(p->sources);
            free(p->twins);
            free(p);
            rc = -1;
        }
    } else if (rc == 0) {
        rc = -1;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}
