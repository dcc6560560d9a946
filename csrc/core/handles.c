/* The handle table: which pointers are live objects of which kind.
 *
 * Every check looks a pointer up here before touching it, so a destroyed, foreign or random
 * pointer yields an error code instead of a dereference. Open addressing with tombstones. */
#include <stdlib.h>
#include <pthread.h>
#include <stdint.h>
#include "core/handles.h"

#define TOMBSTONE ((uintptr_t)1)

typedef struct { uintptr_t key; int kind; } slot;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static slot *slots;
static size_t capacity, used, live; /* used counts live entries and tombstones */

static size_t hash(uintptr_t key)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key;
}

static slot *find(uintptr_t key)
{
    if (capacity == 0)
        return NULL;
    for (size_t i = hash(key) & (capacity - 1);; i = (i + 1) & (capacity - 1)) {
        if (slots[i].key == key)
            return &slots[i];
        if (slots[i].key == 0)
            return NULL;
    }
}

static void insert(uintptr_t key, int kind)
{
    size_t i = hash(key) & (capacity - 1);
    while (slots[i].key != 0 && slots[i].key != TOMBSTONE)
        i = (i + 1) & (capacity - 1);
    if (slots[i].key == 0)
        used++;
    slots[i].key = key;
    slots[i].kind = kind;
}

static void grow(void)
{
    slot *old = slots;
    size_t old_capacity = capacity;
    /* sized from the live entries, so create/destroy churn recycles tombstones instead of growing */
    capacity = 1024;
    while (capacity < 4 * (live + 1))
        capacity *= 2;
    slots = calloc(capacity, sizeof *slots);
    if (slots == NULL)
        abort(); /* out of host memory for bookkeeping: nothing sensible is left to do */
    used = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].key > TOMBSTONE)
            insert(old[i].key, old[i].kind);
    free(old);
}

void opemu_handle_add(const void *handle, int kind)
{
    pthread_mutex_lock(&lock);
    slot *existing = find((uintptr_t)handle);
    if (existing) {
        existing->kind = kind;
    } else {
        if ((used + 1) * 2 > capacity)
            grow();
        insert((uintptr_t)handle, kind);
        live++;
    }
    pthread_mutex_unlock(&lock);
}

void opemu_handle_remove(const void *handle)
{
    pthread_mutex_lock(&lock);
    slot *s = find((uintptr_t)handle);
    if (s) {
        s->key = TOMBSTONE;
        live--;
    }
    pthread_mutex_unlock(&lock);
}

int opemu_handle_is(const void *handle, int kind)
{
    if ((uintptr_t)handle <= TOMBSTONE)
        return 0;
    pthread_mutex_lock(&lock);
    slot *s = find((uintptr_t)handle);
    int live = s && s->kind == kind;
    pthread_mutex_unlock(&lock);
    return live;
}

size_t opemu_handle_count(int kind)
{
    size_t n = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < capacity; i++)
        n += slots[i].key > TOMBSTONE && slots[i].kind == kind;
    pthread_mutex_unlock(&lock);
    return n;
}
