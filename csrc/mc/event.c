/* MACA's events (mcEvent*) and stream waits, on core's events (core/event.c) with CUDA's rules: an
 * event never recorded counts as complete, and timing needs events created without
 * mcEventDisableTiming. */
#include "mc_internal.h"

/* The live event `event` is, with its state in *state; else mcErrorInvalidResourceHandle, recorded. */
static mcError_t live_event(mcEvent_t event, const char *api, opemu_event_state *state)
{
    if (event == NULL || opemu_event_info(event, state) != 0)
        return mc_fail(mcErrorInvalidResourceHandle, "%s: %p is not a live event", api, (void *)event);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcStreamWaitEvent(mcStream_t stream, mcEvent_t event, unsigned int flags)
{
    opemu_event_state state;
    mcError_t rc = live_event(event, "mcStreamWaitEvent", &state);
    if (rc)
        return rc;
    if (flags != 0)
        return mc_fail(mcErrorInvalidValue, "mcStreamWaitEvent: flags must be 0, got %#x", flags);
    opemu_stream *s = mc_stream(stream, "mcStreamWaitEvent", &rc);
    if (s == NULL)
        return rc;
    if (!state.recorded) /* waiting for an event never recorded is a no-op */
        return mcSuccess;
    int status = opemu_event_wait(s, opemu_event_live(event), "mcStreamWaitEvent");
    return status ? mc_from_runtime(status, "mcStreamWaitEvent") : mcSuccess;
}

/* ---- events ---- */

OPEMU_EXPORT mcError_t mcEventCreateWithFlags(mcEvent_t *event, unsigned int flags)
{
    if (event == NULL)
        return mc_fail(mcErrorInvalidValue, "mcEventCreate: event is null");
    unsigned known = mcEventBlockingSync | mcEventDisableTiming | mcEventInterprocess;
    if ((flags & ~known) || ((flags & mcEventInterprocess) && !(flags & mcEventDisableTiming)))
        return mc_fail(mcErrorInvalidValue, "mcEventCreateWithFlags: invalid flags %#x (mcEventInterprocess needs "
                       "mcEventDisableTiming)", flags);
    mc_context();
    *event = (mcEvent_t)opemu_event_new(flags);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcEventCreate(mcEvent_t *event) { return mcEventCreateWithFlags(event, mcEventDefault); }

OPEMU_EXPORT mcError_t mcEventRecord(mcEvent_t event, mcStream_t stream)
{
    opemu_event_state state;
    mcError_t rc = live_event(event, "mcEventRecord", &state);
    if (rc)
        return rc;
    opemu_stream *s = mc_stream(stream, "mcEventRecord", &rc);
    if (s == NULL)
        return rc;
    int status = opemu_event_record(opemu_event_live(event), s);
    return status ? mc_from_runtime(status, "mcEventRecord") : mcSuccess;
}

/* An event never recorded counts as complete, as in CUDA. */
OPEMU_EXPORT mcError_t mcEventQuery(mcEvent_t event)
{
    opemu_event_state state;
    mcError_t rc = live_event(event, "mcEventQuery", &state);
    if (rc)
        return rc;
    return !state.recorded || state.completed ? mcSuccess : mcErrorNotReady;
}

OPEMU_EXPORT mcError_t mcEventSynchronize(mcEvent_t event)
{
    opemu_event_state state;
    mcError_t rc = live_event(event, "mcEventSynchronize", &state);
    if (rc)
        return rc;
    int status = opemu_event_synchronize(opemu_event_live(event));
    mc_pools_trim(opemu_mc_current_device());
    return status ? mc_from_runtime(status, "mcEventSynchronize") : mcSuccess;
}

OPEMU_EXPORT mcError_t mcEventElapsedTime(float *ms, mcEvent_t start, mcEvent_t end)
{
    opemu_event_state first, last;
    if (ms == NULL)
        return mc_fail(mcErrorInvalidValue, "mcEventElapsedTime: ms is null");
    mcError_t rc = live_event(start, "mcEventElapsedTime", &first);
    if (rc == mcSuccess)
        rc = live_event(end, "mcEventElapsedTime", &last);
    if (rc)
        return rc;
    if ((first.flags | last.flags) & mcEventDisableTiming)
        return mc_fail(mcErrorInvalidResourceHandle, "mcEventElapsedTime: an event was created with "
                       "mcEventDisableTiming");
    if (!first.recorded || !last.recorded)
        return mc_fail(mcErrorInvalidResourceHandle, "mcEventElapsedTime: both events must have been recorded");
    if (!first.completed || !last.completed)
        return mcErrorNotReady;
    *ms = (float)(last.time_ms - first.time_ms);
    return mcSuccess;
}

OPEMU_EXPORT mcError_t mcEventDestroy(mcEvent_t event)
{
    opemu_event_state state;
    mcError_t rc = live_event(event, "mcEventDestroy", &state);
    if (rc)
        return rc;
    opemu_event_free(opemu_event_live(event));
    return mcSuccess;
}
