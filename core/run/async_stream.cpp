#include "core/run/async_stream.h"

#include "core/base/parallel.h"
#include "core/base/vector_state.h"

#include <chrono>
#include <cstring>
#include <deque>
#include <stdexcept>

namespace svi {

// --- StagedTrainer: its step, and the hooks asynchronous streaming needs ---

double StagedTrainer::step(std::int64_t t)
{
    if (m_async)
        return m_async->step(*this, t);
    for (;;) {
        const Round round = localStep(t);
        communicator().reduce(statistic());
        if (round == Round::Update)
            return globalUpdate(t);
        warmUp();
    }
}

bool StagedTrainer::exhausted() const
{
    return m_async ? m_async->finished() : streamEnded();
}

std::int64_t StagedTrainer::itemsSeen(std::int64_t steps) const noexcept
{
    return m_async ? m_async->itemsApplied() : streamGiven(steps);
}

namespace {

[[noreturn]] void notAsynchronous()
{
    throw std::logic_error("this trainer does not stream asynchronously");
}

} // namespace

std::int64_t StagedTrainer::streamMinibatches() const
{
    notAsynchronous();
}

void StagedTrainer::seekMinibatch(std::int64_t)
{
    notAsynchronous();
}

void StagedTrainer::minibatchRows(std::int64_t, std::vector<std::int32_t>&)
{
    notAsynchronous();
}

void StagedTrainer::listPosterior(GlobalStatistic&)
{
    notAsynchronous();
}

void StagedTrainer::listPosteriorRows(GlobalStatistic&, const std::vector<std::int32_t>*)
{
    notAsynchronous();
}

void StagedTrainer::beforeEvaluation()
{
    if (m_async)
        m_async->refresh(*this);
}

// --- the messages ---

namespace {

// What a rank sends with its change: its times so far, the items of the change, whether its
// stream has ended (then there is no change and no answer), and the minibatch whose rows of the
// posterior it wants in the answer (−1: the one the answer assigns). The change follows.
struct ChangeHeader
{
    AsyncRankTimes times;
    std::int64_t items = 0;
    std::int64_t want = -1;
    std::uint8_t ended = 0;
};

std::string changeMessage(const ChangeHeader& h, const std::string& change)
{
    std::string out(sizeof h, '\0');
    std::memcpy(out.data(), &h, sizeof h);
    return out + change;
}

ChangeHeader readHeader(const std::string& message)
{
    ChangeHeader h;
    if (message.size() < sizeof h)
        throw std::runtime_error("asynchronous streaming: a message of " +
                                 std::to_string(message.size()) +
                                 " bytes, too short for its header");
    std::memcpy(&h, message.data(), sizeof h);
    return h;
}

// An answer: go on (then the minibatch assigned, −1 for none, and the rows) or stop.
constexpr char kGoOn = 'p', kStop = 's';

StagedTrainer& staged(Trainer& trainer, const char* what)
{
    auto* s = dynamic_cast<StagedTrainer*>(&trainer);
    if (!s || !s->asynchronous())
        throw std::invalid_argument(std::string("asynchronous streaming: the ") + what +
                                    " is not a trainer that streams asynchronously");
    return *s;
}

// The minibatches a rank takes before any answer: r and R + r of the M, so that it has the one
// after its first in hand (the rest are handed out as changes come in).
std::deque<std::int64_t> firstMinibatches(int rank, int size, std::int64_t M)
{
    std::deque<std::int64_t> out;
    for (std::int64_t b = rank; b < M && b < 2 * std::int64_t(size); b += size)
        out.push_back(b);
    return out;
}

} // namespace

void AsyncStream::replacePosterior(StagedTrainer& trainer, std::string_view bytes)
{
    GlobalStatistic buffers;
    trainer.listPosterior(buffers);
    buffers.unpack(bytes);
    trainer.posteriorReplaced();
}

void AsyncStream::replaceRows(StagedTrainer& trainer, std::string_view bytes)
{
    GlobalStatistic buffers;
    trainer.listPosteriorRows(buffers, nullptr);
    buffers.unpack(bytes);
    trainer.posteriorRowsReplaced();
}

// --- rank 0 ---

AsyncStream::AsyncStream(Communicator& ranks, Trainer& trainer, std::unique_ptr<Trainer> keeper,
                         ChangeObserver observer)
    : m_ranks(ranks), m_trainer(staged(trainer, "run's trainer")), m_keeperOwner(std::move(keeper)),
      m_keeper(staged(*m_keeperOwner, "posterior's keeper")), m_observer(std::move(observer))
{
    if (ranks.rank() != 0 || ranks.size() < 2)
        throw std::invalid_argument("asynchronous streaming: rank 0 of at least two holds the "
                                    "posterior");
    if (!ranks.servesFromAThread())
        throw std::invalid_argument("asynchronous streaming: the MPI library was not initialised "
                                    "for calls from a second thread (MPI_THREAD_SERIALIZED)");
    m_minibatches = m_keeper.streamMinibatches();
    m_next = std::min<std::int64_t>(m_minibatches, 2 * std::int64_t(ranks.size()));
    m_mine = firstMinibatches(0, ranks.size(), m_minibatches);
    m_trainer.m_async = this;
    m_active = ranks.size() - 1;
    m_times.resize(std::size_t(ranks.size()));
    m_server = std::thread([this] { serve(); });
}

AsyncStream::~AsyncStream()
{
    stop();
    m_trainer.m_async = nullptr;
}

void AsyncStream::stop()
{
    m_stop = true;
    if (m_server.joinable())
        m_server.join();
}

std::vector<AsyncRankTimes> AsyncStream::times() const
{
    std::lock_guard lock(m_mutex);
    return m_times;
}

std::int64_t AsyncStream::assign()
{
    return !m_stop && m_next < m_minibatches ? m_next++ : -1;
}

void AsyncStream::apply(int rank, const std::string& change, std::int64_t items)
{
    if (m_observer)
        m_observer(rank, change);
    m_keeper.listStatistic();
    m_keeper.statistic().unpack(change);
    m_keeper.globalUpdate(1);
    m_itemsApplied += items;
}

std::string AsyncStream::posteriorBytes(const std::vector<std::int32_t>* rows)
{
    GlobalStatistic buffers;
    if (rows)
        m_keeper.listPosteriorRows(buffers, rows);
    else
        m_keeper.listPosterior(buffers);
    return buffers.pack();
}

void AsyncStream::refresh(StagedTrainer& trainer)
{
    std::string posterior;
    {
        std::lock_guard lock(m_mutex);
        posterior = posteriorBytes(nullptr);
    }
    replacePosterior(trainer, posterior);
}

double AsyncStream::step(StagedTrainer& trainer, std::int64_t t)
{
    AsyncRankTimes& mine = m_times[0]; // rank 0's own entry: written by this thread only
    if (!m_mine.empty()) {
        const auto t0 = Clock::now();
        const std::int64_t b = m_mine.front();
        m_mine.pop_front();
        trainer.seekMinibatch(b);
        const std::int64_t before = trainer.streamGiven(0);
        trainer.localStep(t);
        const std::string change = trainer.statistic().pack();
        const std::int64_t items = trainer.streamGiven(0) - before;
        trainer.globalUpdate(t); // its own change at once, as the others do
        const double busy = secondsSince(t0);
        const auto t1 = Clock::now();
        std::string rows;
        std::unique_lock lock(m_mutex);
        const double locked = secondsSince(t1); // waited for the serving thread
        const auto t2 = Clock::now();
        mine.busy += busy;
        ++mine.minibatches;
        mine.items += items;
        apply(0, change, items);
        if (const std::int64_t a = assign(); a >= 0)
            m_mine.push_back(a);
        if (!m_mine.empty()) {
            // What its next minibatch reads, as rank 0 now holds it.
            m_keeper.minibatchRows(m_mine.front(), m_rows);
            rows = posteriorBytes(&m_rows);
        }
        lock.unlock();
        if (!rows.empty())
            replaceRows(trainer, rows);
        lock.lock();
        mine.wait += locked;
        mine.exchange += secondsSince(t2);
    }
    if (m_mine.empty()) {
        // The others' last changes, then the posterior that holds every one.
        const auto t0 = Clock::now();
        waitForOthers();
        refresh(trainer);
        std::lock_guard lock(m_mutex);
        mine.wait += secondsSince(t0);
        m_finished = true;
    }
    return 1.0;
}

void AsyncStream::waitForOthers()
{
    std::unique_lock lock(m_mutex);
    m_othersDone.wait(lock, [&] { return m_active == 0; });
}

void AsyncStream::serve()
{
    clearUpperVectorState();
    for (;;) {
        {
            std::lock_guard lock(m_mutex);
            if (m_active == 0)
                break;
        }
        int source = 0;
        if (!m_ranks.probe(Communicator::kAnySource, kChangeTag, &source)) {
            // Polling leaves the core to the ranks' work (a blocking MPI receive spins).
            std::this_thread::sleep_for(std::chrono::microseconds(200));
            continue;
        }
        const std::string message = m_ranks.receive(source, kChangeTag);
        const ChangeHeader h = readHeader(message);
        std::string reply;
        {
            std::lock_guard lock(m_mutex);
            m_times[std::size_t(source)] = h.times;
            if (message.size() > sizeof h)
                apply(source, message.substr(sizeof h), h.items);
            if (h.ended || m_stop) {
                --m_active;
                if (m_active == 0)
                    m_othersDone.notify_all();
            }
            if (h.ended)
                continue; // a rank whose stream has ended waits for nothing
            if (m_stop) {
                reply = std::string(1, kStop);
            } else {
                const std::int64_t assigned = assign();
                const std::int64_t want = h.want >= 0 ? h.want : assigned;
                m_rows.clear();
                if (want >= 0)
                    m_keeper.minibatchRows(want, m_rows);
                reply.assign(1 + sizeof assigned, kGoOn);
                std::memcpy(reply.data() + 1, &assigned, sizeof assigned);
                reply += posteriorBytes(&m_rows);
            }
        }
        m_ranks.post(source, kPosteriorTag, std::move(reply)); // not waiting for the rank
    }
    m_ranks.completePosts();
}

// --- ranks > 0 ---

AsyncRankTimes AsyncStream::work(Trainer& run, Communicator& ranks)
{
    StagedTrainer& trainer = staged(run, "run's trainer");
    // Every rank's trainer was built as rank 0's keeper was: the same stream of minibatches,
    // the same prior and the same seeded start, so that none waits for a first posterior.
    std::deque<std::int64_t> queue =
        firstMinibatches(ranks.rank(), ranks.size(), trainer.streamMinibatches());
    ChangeHeader h;
    // Waits for rank 0's answer to the last change: its rows of the posterior and the next
    // minibatch handed out. False when it says stop.
    const auto answered = [&] {
        const auto t0 = Clock::now();
        const std::string reply = ranks.receive(0, AsyncStream::kPosteriorTag);
        h.times.wait += secondsSince(t0);
        const auto t1 = Clock::now();
        std::int64_t assigned = -1;
        const bool goOn = reply.size() > sizeof assigned && reply[0] == kGoOn;
        if (goOn) {
            std::memcpy(&assigned, reply.data() + 1, sizeof assigned);
            if (assigned >= 0)
                queue.push_back(assigned);
            replaceRows(trainer, std::string_view(reply).substr(1 + sizeof assigned));
        }
        h.times.exchange += secondsSince(t1);
        return goOn;
    };
    // Posted: the rank goes on while rank 0 takes it.
    const auto sendChange = [&](const std::string& change) {
        const auto t0 = Clock::now();
        ranks.post(0, AsyncStream::kChangeTag, changeMessage(h, change));
        h.times.exchange += secondsSince(t0);
    };
    const auto done = [&] {
        const auto t0 = Clock::now();
        ranks.completePosts();
        h.times.wait += secondsSince(t0);
        return h.times;
    };
    // Pipelined: a change goes out, and the next minibatch is fitted while rank 0 adds it —
    // under the rows of rank 0's last answer plus this rank's own latest change — so that a
    // rank waits only when an answer comes later than its next change is ready. The answer to a
    // change carries the rows that the minibatch after the next one reads, and hands out the
    // one after that: a rank that fits faster takes more of the stream.
    bool pending = false;
    for (std::int64_t t = 1;; ++t) {
        if (queue.empty() && pending) {
            if (!answered())
                return done();
            pending = false;
        }
        if (queue.empty()) {
            h.ended = 1;
            h.items = 0;
            sendChange({});
            return done();
        }
        const auto t1 = Clock::now();
        clearUpperVectorStateEverywhere(); // see core/base/vector_state.h
        trainer.seekMinibatch(queue.front());
        queue.pop_front();
        const std::int64_t before = trainer.streamGiven(0);
        trainer.localStep(t);
        const std::string change = trainer.statistic().pack();
        h.items = trainer.streamGiven(0) - before;
        h.times.items += h.items;
        ++h.times.minibatches;
        h.times.busy += secondsSince(t1);
        if (pending && !answered())
            return done();
        trainer.globalUpdate(t); // its own change, at once (rank 0's answer will hold it)
        h.want = queue.size() >= 2 ? queue[1] : -1;
        sendChange(change);
        pending = true;
    }
}

} // namespace svi
