/* Kernel threads without Python in between: a kernel split into independent pieces of a range runs piece 0
 * on the caller and the others on this pool's workers, all in C (python/opemu/core/parallel.py's pool runs
 * a Python function per piece, so each piece first takes the GIL, and its worker sleeps between calls).
 *
 * Why a pool of our own: waking a sleeping thread costs this host (a VM, whose idle vCPU halts) 20-50 us,
 * which a 1 ms memory-bound kernel feels. So a worker spins for SPIN_NS after each job before it sleeps,
 * as OpenMP runtimes do: a kernel that follows another within that time starts at once on every core.
 *
 * One job at a time: a caller that finds the pool busy (another Python thread's kernel, or a piece that
 * splits again) runs all its pieces itself. A child process after fork() starts a pool of its own.
 *
 * The range goes out in CHUNKS_PER_PIECE chunks a thread, each thread claiming the next as it finishes one: a
 * thread whose core another process's threads share (torch's OpenMP workers, OpenBLAS's, spinning after their
 * calls) takes fewer, where fixed halves left the call waiting for the slow one. The chunks are fixed by
 * (count, pieces) alone, and a kernel's results do not depend on which thread ran a chunk: its `index` only
 * names the thread's scratch. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include "kernels.h"
#include "nontemporal.h"

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

enum { MAX_WORKERS = 256 };
#define SPIN_NS 200000   /* 0.2 ms: longer than the gaps between a call's kernels, short beside any GEMM */
#define CHUNKS_PER_PIECE 4

static pthread_mutex_t submit_lock = PTHREAD_MUTEX_INITIALIZER;   /* held by the one caller at work */
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static _Atomic uint64_t generation;   /* bumped once per job; workers wait for it to move */
static _Atomic int finished;          /* workers done with the current job */
static int sleepers;                  /* under sleep_lock */
static int started;                   /* workers running (only the submitter changes it) */
static uint64_t start_generation;     /* generation when the workers started last (under submit_lock) */

static struct {
    opemu_piece piece;
    const void *job;
    int64_t count, chunks;
    int pieces;
} current;
static _Atomic int64_t next_chunk;   /* the current job's next unclaimed chunk */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Chunks of the current job as thread `index` claims them */
static void run_piece(int index)
{
    int64_t c;
    while ((c = atomic_fetch_add_explicit(&next_chunk, 1, memory_order_relaxed)) < current.chunks) {
        int64_t lo = current.count * c / current.chunks, hi = current.count * (c + 1) / current.chunks;
        if (lo < hi)
            current.piece(current.job, index, lo, hi);
    }
    opemu_nontemporal_fence();   /* a piece's streaming stores are done before the job is */
}

static void *worker(void *arg)
{
    int index = (int)(intptr_t)arg;   /* piece index: 1.. (0 is the caller's) */
    /* the generation before the job this worker was started for: only the submitter, who holds submit_lock
     * until the job is done, moves it, so a late-starting worker still sees that job as new */
    uint64_t seen = start_generation;
    for (;;) {
        uint64_t start = now_ns(), next;
        while ((next = atomic_load_explicit(&generation, memory_order_acquire)) == seen) {
            CPU_RELAX();
            if (now_ns() - start > SPIN_NS) {
                pthread_mutex_lock(&sleep_lock);
                sleepers++;
                while ((next = atomic_load_explicit(&generation, memory_order_acquire)) == seen)
                    pthread_cond_wait(&wake, &sleep_lock);
                sleepers--;
                pthread_mutex_unlock(&sleep_lock);
                break;
            }
        }
        seen = next;
        if (index < current.pieces)
            run_piece(index);
        atomic_fetch_add_explicit(&finished, 1, memory_order_release);
    }
    return NULL;
}

/* fork() while a job runs or a worker holds sleep_lock would leave the child a lock no thread of its own
 * releases: the fork waits for both, and the child, whose workers did not come along, starts its own. */
static void before_fork(void)
{
    pthread_mutex_lock(&submit_lock);
    pthread_mutex_lock(&sleep_lock);
}

static void after_fork_in_parent(void)
{
    pthread_mutex_unlock(&sleep_lock);
    pthread_mutex_unlock(&submit_lock);
}

static void after_fork_in_child(void)
{
    started = 0;
    sleepers = 0;
    pthread_mutex_unlock(&sleep_lock);
    pthread_mutex_unlock(&submit_lock);
}

__attribute__((constructor)) static void register_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

/* Starts workers up to `wanted` (the submitter holds submit_lock); returns how many run. */
static int ensure_workers(int wanted)
{
    start_generation = atomic_load_explicit(&generation, memory_order_relaxed);
    while (started < wanted) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int failed = pthread_create(&thread, &attr, worker, (void *)(intptr_t)(started + 1));
        pthread_attr_destroy(&attr);
        if (failed)
            break;
        started++;
    }
    return started;
}

void opemu_pool_split(int pieces, int64_t count, opemu_piece piece, const void *job)
{
    if (pieces > count)
        pieces = (int)count;
    if (pieces > MAX_WORKERS)
        pieces = MAX_WORKERS;
    if (pieces <= 1 || pthread_mutex_trylock(&submit_lock) != 0) {
        if (count > 0)
            piece(job, 0, 0, count);
        return;
    }
    int workers = ensure_workers(pieces - 1);
    if (workers < pieces - 1) {   /* no threads to be had: the caller does it all */
        pthread_mutex_unlock(&submit_lock);
        piece(job, 0, 0, count);
        return;
    }
    current.piece = piece;
    current.job = job;
    current.count = count;
    current.pieces = pieces;
    current.chunks = count < (int64_t)pieces * CHUNKS_PER_PIECE ? count : (int64_t)pieces * CHUNKS_PER_PIECE;
    atomic_store_explicit(&next_chunk, 0, memory_order_relaxed);
    atomic_store_explicit(&finished, 0, memory_order_relaxed);
    pthread_mutex_lock(&sleep_lock);
    atomic_fetch_add_explicit(&generation, 1, memory_order_release);
    if (sleepers)
        pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&sleep_lock);
    run_piece(0);
    /* every started worker answers each job (those past `pieces` with nothing to do); one the host has
     * descheduled gets the core back after a while */
    uint64_t waiting = now_ns();
    while (atomic_load_explicit(&finished, memory_order_acquire) < workers) {
        CPU_RELAX();
        if (now_ns() - waiting > SPIN_NS)
            sched_yield();
    }
    pthread_mutex_unlock(&submit_lock);
}
