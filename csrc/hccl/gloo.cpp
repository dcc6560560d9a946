/* The Gloo transport: the ranks are on several hosts (Debian's libgloo, TCP). Built as the module
 * libopemu_gloo.so (gloo_module.h says why); it calls the core through the services table only.
 *
 * Each rank has a gloo::rendezvous::Context connected to every other rank; its rendezvous store is
 * the root's listener (keys under the communicator's id). A progress thread per rank runs its ops
 * in order. A step first gives every rank every rank's signature and sizes (so a mismatch fails
 * every rank alike), then moves whole blocks with unbound buffers straight from and into device
 * memory; a reduce-scatter receives the peers' blocks into host scratch and reduces them in rank
 * order. Gloo reports a dead peer as a closed connection (within ~0.1 s) and bounds every wait by
 * the execution deadline. The progress thread is the core's (worker.c). */
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include "gloo_module.h"

namespace {

const hccl_gloo_services *core;

class RootStore : public gloo::rendezvous::Store {
  public:
    RootStore(const hccl_root_address &root, uint64_t id, double deadline) : root_(root), deadline_(deadline)
    {
        char prefix[32];
        std::snprintf(prefix, sizeof prefix, "gloo/%016llx/", (unsigned long long)id);
        prefix_ = prefix;
    }

    void set(const std::string &key, const std::vector<char> &data) override
    {
        if (core->store_set(&root_, 0, (prefix_ + key).c_str(), data.data(), (uint32_t)data.size()) != HCCL_SUCCESS)
            throw std::runtime_error("the rendezvous store refused " + key);
    }

    std::vector<char> get(const std::string &key) override
    {
        std::vector<char> value(1 << 20);
        uint32_t size = 0;
        if (core->store_get(&root_, 0, (prefix_ + key).c_str(), value.data(), (uint32_t)value.size(), &size,
                           deadline_) != HCCL_SUCCESS)
            throw std::runtime_error("the rendezvous store has no " + key);
        value.resize(size);
        return value;
    }

    void wait(const std::vector<std::string> &keys) override
    {
        for (const auto &key : keys)
            get(key);
    }

    void wait(const std::vector<std::string> &keys, const std::chrono::milliseconds &) override { wait(keys); }

  private:
    hccl_root_address root_;
    double deadline_;
    std::string prefix_;
};

struct Link {
    std::shared_ptr<gloo::rendezvous::Context> context;
    std::vector<uint64_t> send_seq, recv_seq;
    hccl_worker *worker = nullptr;
};

std::chrono::milliseconds left(const hccl_op *op)
{
    if (op->deadline <= 0)
        return std::chrono::hours(24 * 365);
    double ms = (op->deadline - core->now()) * 1000.0;
    return std::chrono::milliseconds(ms < 1 ? 1 : (long long)ms);
}

/* Distinct Gloo slots: collectives by sequence number and step, point-to-point by pair message count. */
uint64_t collective_slot(const hccl_op *op, int step, int phase) { return (op->sig.seq << 4) | (uint64_t)(step * 2 + phase); }
uint64_t p2p_slot(uint64_t message, int phase) { return (1ULL << 63) | (message << 1) | (uint64_t)phase; }

struct Failure : std::runtime_error {
    HcclResult code;
    Failure(HcclResult c, const std::string &m) : std::runtime_error(m), code(c) {}
};

/* Posts every receive, then every send, then waits for all of them. */
void exchange(Link *l, hccl_rank *r, const hccl_op *op, uint64_t slot, std::vector<char *> &send_ptr,
              std::vector<uint64_t> &send_bytes, std::vector<char *> &recv_ptr, std::vector<uint64_t> &recv_bytes)
{
    std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> recvs, sends;
    for (uint32_t p = 0; p < r->size; p++)
        if (p != r->rank && recv_bytes[p]) {
            recvs.push_back(l->context->createUnboundBuffer(recv_ptr[p], recv_bytes[p]));
            recvs.back()->recv((int)p, slot);
        }
    for (uint32_t p = 0; p < r->size; p++)
        if (p != r->rank && send_bytes[p]) {
            sends.push_back(l->context->createUnboundBuffer(send_ptr[p], send_bytes[p]));
            sends.back()->send((int)p, slot);
        }
    for (auto &b : recvs)
        if (!b->waitRecv(left(op)))
            throw Failure(HCCL_E_REMOTE, "a receive was aborted");
    for (auto &b : sends)
        if (!b->waitSend(left(op)))
            throw Failure(HCCL_E_REMOTE, "a send was aborted");
}

/* Every rank's signature and sizes, to every rank; a mismatch anywhere fails everyone alike. */
void agree(Link *l, hccl_rank *r, const hccl_op *op, int s, const hccl_step *st)
{
    uint32_t n = r->size;
    size_t bytes = sizeof(hccl_signature) + 2 * n * sizeof(uint64_t);
    std::vector<char> all((size_t)n * bytes);
    char *mine = all.data() + (size_t)r->rank * bytes;
    std::memcpy(mine, &op->sig, sizeof op->sig);
    uint64_t *sizes = reinterpret_cast<uint64_t *>(mine + sizeof(hccl_signature));
    for (uint32_t p = 0; p < n; p++) {
        bool moves = st->kind == HCCL_STEP_ALLTOALL && p != r->rank;
        sizes[p] = moves ? st->send[p].bytes : 0;
        sizes[n + p] = moves ? st->recv[p].bytes : 0;
    }
    std::vector<char *> send_ptr(n, mine), recv_ptr(n);
    std::vector<uint64_t> send_bytes(n, bytes), recv_bytes(n, bytes);
    for (uint32_t p = 0; p < n; p++)
        recv_ptr[p] = all.data() + (size_t)p * bytes;
    exchange(l, r, op, collective_slot(op, s, 0), send_ptr, send_bytes, recv_ptr, recv_bytes);
    char message[1024];
    for (uint32_t k = 0; k < n; k++) {
        hccl_signature a, b;
        std::memcpy(&a, all.data(), sizeof a);
        std::memcpy(&b, all.data() + (size_t)k * bytes, sizeof b);
        if (k && core->signatures_differ(&a, 0, &b, k, message, sizeof message))
            throw Failure(HCCL_E_PARA, message);
        const uint64_t *row = reinterpret_cast<const uint64_t *>(all.data() + (size_t)k * bytes + sizeof(hccl_signature));
        for (uint32_t j = 0; j < n; j++) {
            const uint64_t *other = reinterpret_cast<const uint64_t *>(all.data() + (size_t)j * bytes +
                                                                         sizeof(hccl_signature));
            if (row[j] != other[n + k]) {
                std::snprintf(message, sizeof message, "[TaskExecStage][OpInconsistent] %s #%llu: rank %u sends rank %u "
                              "%llu bytes, rank %u expects %llu bytes from rank %u", core->cmd_name(op->sig.cmd),
                              (unsigned long long)op->sig.seq, k, j, (unsigned long long)row[j], j,
                              (unsigned long long)other[n + k], k);
                throw Failure(HCCL_E_PARA, message);
            }
        }
    }
}

void all_to_all(Link *l, hccl_rank *r, hccl_op *op, int s, hccl_step *st)
{
    uint32_t n = r->size, me = r->rank;
    std::vector<std::vector<char>> aside;
    std::vector<char *> send_ptr(n), recv_ptr(n);
    std::vector<uint64_t> send_bytes(n), recv_bytes(n);
    for (uint32_t j = 0; j < n; j++) {
        send_ptr[j] = st->send[j].ptr;
        send_bytes[j] = st->send[j].bytes;
        recv_ptr[j] = st->recv[j].ptr;
        recv_bytes[j] = st->recv[j].bytes;
        bool overlaps = false;
        for (uint32_t k = 0; k < n && !overlaps; k++)
            overlaps = !(k == me && j == me && st->recv[k].ptr == st->send[j].ptr) &&
                       core->overlap(st->send[j].ptr, st->send[j].bytes, st->recv[k].ptr, st->recv[k].bytes);
        if (overlaps) {
            aside.emplace_back(st->send[j].ptr, st->send[j].ptr + st->send[j].bytes);
            send_ptr[j] = aside.back().data();
        }
    }
    exchange(l, r, op, collective_slot(op, s, 1), send_ptr, send_bytes, recv_ptr, recv_bytes);
    if (send_bytes[me] && send_ptr[me] != recv_ptr[me])
        std::memmove(recv_ptr[me], send_ptr[me], send_bytes[me]);
}

void reduce_scatter(Link *l, hccl_rank *r, hccl_op *op, int s, hccl_step *st)
{
    uint32_t n = r->size, me = r->rank;
    uint64_t es = core->dtype_size(st->dtype), mine = st->counts[me] * es;
    std::vector<char> scratch((size_t)(n ? n : 1) * (size_t)mine + 1);
    std::vector<char *> send_ptr(n), recv_ptr(n), inputs(n);
    std::vector<uint64_t> send_bytes(n), recv_bytes(n);
    for (uint32_t p = 0; p < n; p++) {
        send_ptr[p] = st->send[p].ptr;
        send_bytes[p] = st->counts[p] * es;
        recv_ptr[p] = scratch.data() + (size_t)p * mine;
        recv_bytes[p] = mine;
        inputs[p] = p == me ? st->send[me].ptr : recv_ptr[p];
    }
    exchange(l, r, op, collective_slot(op, s, 1), send_ptr, send_bytes, recv_ptr, recv_bytes);
    if (core->reduce(st->dtype, st->op, n, inputs.data(), st->recv[0].ptr, st->counts[me]) != HCCL_SUCCESS)
        throw Failure(HCCL_E_INTERNAL, "the reduction failed");
}

void point_to_point(Link *l, hccl_rank *r, hccl_op *op)
{
    struct Pending {
        std::unique_ptr<gloo::transport::UnboundBuffer> header, data;
        uint64_t size[2];
        hccl_p2p *item;
        uint64_t message;
    };
    std::vector<Pending> items(op->n_p2p);
    for (uint32_t k = 0; k < op->n_p2p; k++) {
        Pending &p = items[k];
        p.item = &op->p2p[k];
        p.message = p.item->is_send ? ++l->send_seq[p.item->peer] : ++l->recv_seq[p.item->peer];
        p.size[0] = p.item->bytes;
        p.size[1] = (uint64_t)(int64_t)p.item->dtype;
        p.header = l->context->createUnboundBuffer(p.size, sizeof p.size);
        if (p.item->is_send)
            p.header->send((int)p.item->peer, p2p_slot(p.message, 0));
        else
            p.header->recv((int)p.item->peer, p2p_slot(p.message, 0));
    }
    for (auto &p : items) {
        bool done = p.item->is_send ? p.header->waitSend(left(op)) : p.header->waitRecv(left(op));
        if (!done)
            throw Failure(HCCL_E_REMOTE, "a transfer was aborted");
        if (!p.item->is_send && (p.size[0] != p.item->bytes || (int32_t)p.size[1] != p.item->dtype)) {
            char message[512];
            std::snprintf(message, sizeof message, "[TaskExecStage][OpInconsistent] rank %u sends rank %u %llu bytes "
                          "of %s, rank %u receives %llu bytes of %s", p.item->peer, r->rank,
                          (unsigned long long)p.size[0], core->dtype_name((int32_t)p.size[1]), r->rank,
                          (unsigned long long)p.item->bytes, core->dtype_name(p.item->dtype));
            throw Failure(HCCL_E_PARA, message);
        }
        if (p.item->bytes == 0)
            continue;
        p.data = l->context->createUnboundBuffer(p.item->ptr, p.item->bytes);
        if (p.item->is_send)
            p.data->send((int)p.item->peer, p2p_slot(p.message, 1));
        else
            p.data->recv((int)p.item->peer, p2p_slot(p.message, 1));
    }
    for (auto &p : items)
        if (p.data && !(p.item->is_send ? p.data->waitSend(left(op)) : p.data->waitRecv(left(op))))
            throw Failure(HCCL_E_REMOTE, "a transfer was aborted");
}

HcclResult run(Link *l, hccl_rank *r, hccl_op *op, std::string &message)
{
    try {
        if (op->n_p2p) {
            point_to_point(l, r, op);
            return HCCL_SUCCESS;
        }
        for (int s = 0; s < op->n_steps; s++) {
            agree(l, r, op, s, &op->steps[s]);
            if (op->steps[s].kind == HCCL_STEP_ALLTOALL)
                all_to_all(l, r, op, s, &op->steps[s]);
            else
                reduce_scatter(l, r, op, s, &op->steps[s]);
        }
        return HCCL_SUCCESS;
    } catch (const Failure &f) {
        message = f.what();
        return f.code;
    } catch (const std::exception &e) {
        bool timeout = std::strstr(e.what(), "imed out") != nullptr;
        message = std::string(timeout ? "[TaskExecStage][Timeout] ExceptionType:[Stuck Occurred] " :
                              "[TaskExecStage][HeartbeatAbnormal] ExceptionType:[Heartbeat Lost Occurred] ") +
                  core->cmd_name(op->sig.cmd) + " #" + std::to_string(op->sig.seq) + ": " + e.what();
        return timeout ? HCCL_E_TIMEOUT : HCCL_E_REMOTE;
    }
}

/* The worker's (worker.c) call for one op; the exceptions stay in this module. */
HcclResult work(void *state, hccl_rank *r, hccl_op *op, char *message, size_t size)
{
    std::string text;
    HcclResult rc = run(static_cast<Link *>(state), r, op, text);
    std::snprintf(message, size, "%s", text.c_str());
    return rc;
}

void submit(hccl_rank *r, hccl_op *op) { core->worker_submit(static_cast<Link *>(r->link)->worker, op); }

void leave(hccl_rank *r)
{
    Link *l = static_cast<Link *>(r->link);
    core->worker_stop(l->worker);
    delete l; /* closing the connections tells the peers */
}

HcclResult join(hccl_rank *r, double deadline)
{
    if (r->root.nonce == 0)
        return core->fail(HCCL_E_NOT_SUPPORT, "a Gloo communicator needs a rendezvous (a root info or rank table)");
    Link *l = new Link();
    l->send_seq.assign(r->size, 0);
    l->recv_seq.assign(r->size, 0);
    try {
        char ip[64];
        core->local_address(ip, sizeof ip);
        gloo::transport::tcp::attr attr(ip);
        auto device = gloo::transport::tcp::CreateDevice(attr);
        RootStore store(r->root, r->id, deadline);
        l->context = std::make_shared<gloo::rendezvous::Context>((int)r->rank, (int)r->size);
        double seconds = deadline - core->now();
        l->context->setTimeout(std::chrono::milliseconds((long long)((seconds > 1 ? seconds : 1) * 1000)));
        l->context->connectFullMesh(store, device);
    } catch (const std::exception &e) {
        delete l;
        return core->fail(HCCL_E_TCP_CONNECT, "rank %u cannot connect its Gloo transport to the other ranks: %s",
                          r->rank, e.what());
    }
    l->worker = core->worker_start(r, work, l, nullptr);
    if (l->worker == nullptr) {
        delete l;
        return core->fail(HCCL_E_SYSCALL, "the communicator's progress thread cannot start");
    }
    r->link = l;
    return HCCL_SUCCESS;
}

const hccl_gloo_module entry_points = {join, submit, leave};

} // namespace

extern "C" __attribute__((visibility("default"))) const hccl_gloo_module *opemu_gloo_module(
    const hccl_gloo_services *services)
{
    core = services;
    return &entry_points;
}
