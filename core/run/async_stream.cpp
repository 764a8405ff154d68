#include "core/run/async_stream.h"

#include "core/base/parallel.h"
#include "core/base/vector_state.h"

#include <chrono>
#include <cstring>
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

void StagedTrainer::streamOwnRows(const Communicator&)
{
    throw std::logic_error("this trainer does not stream asynchronously");
}

void StagedTrainer::listPosterior(GlobalStatistic&)
{
    throw std::logic_error("this trainer does not stream asynchronously");
}

void StagedTrainer::rowsAhead(int, std::vector<std::int32_t>&)
{
    throw std::logic_error("this trainer does not stream asynchronously");
}

void StagedTrainer::listPosteriorRows(GlobalStatistic&, const std::vector<std::int32_t>*)
{
    throw std::logic_error("this trainer does not stream asynchronously");
}

void StagedTrainer::beforeEvaluation()
{
    if (m_async)
        m_async->refresh(*this);
}

// --- the messages ---

namespace {

// What a rank sends with its change: its times so far, the items of the change, whether its
// share has ended (then there is no change and no answer), and how many rows of the posterior
// it wants in the answer (their indices follow the header, then the change).
struct ChangeHeader
{
    AsyncRankTimes times;
    std::int64_t items = 0;
    std::uint64_t rows = 0;
    std::uint8_t ended = 0;
};

std::string changeMessage(const ChangeHeader& h, const std::vector<std::int32_t>& rows,
                          const std::string& change)
{
    std::string out(sizeof h + rows.size() * sizeof(std::int32_t), '\0');
    std::memcpy(out.data(), &h, sizeof h);
    if (!rows.empty())
        std::memcpy(out.data() + sizeof h, rows.data(), rows.size() * sizeof(std::int32_t));
    return out + change;
}

// The header, the rows wanted, and where the change starts.
ChangeHeader readChange(const std::string& message, std::vector<std::int32_t>& rows,
                        std::size_t& changeAt)
{
    ChangeHeader h;
    if (message.size() < sizeof h)
        throw std::runtime_error("asynchronous streaming: a message of " +
                                 std::to_string(message.size()) +
                                 " bytes, too short for its header");
    std::memcpy(&h, message.data(), sizeof h);
    if (h.rows > (message.size() - sizeof h) / sizeof(std::int32_t))
        throw std::runtime_error("asynchronous streaming: a message wants more rows than it holds");
    rows.resize(std::size_t(h.rows));
    if (!rows.empty())
        std::memcpy(rows.data(), message.data() + sizeof h, rows.size() * sizeof(std::int32_t));
    changeAt = sizeof h + rows.size() * sizeof(std::int32_t);
    return h;
}

constexpr char kGoOn = 'p', kStop = 's';

StagedTrainer& staged(Trainer& trainer, const char* what)
{
    auto* s = dynamic_cast<StagedTrainer*>(&trainer);
    if (!s || !s->asynchronous())
        throw std::invalid_argument(std::string("asynchronous streaming: the ") + what +
                                    " is not a trainer that streams asynchronously");
    return *s;
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
    m_trainer.streamOwnRows(ranks);
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
    if (!trainer.streamEnded()) {
        const auto t0 = Clock::now();
        const std::int64_t before = trainer.streamGiven(0);
        trainer.localStep(t);
        const std::string change = trainer.statistic().pack();
        const std::int64_t items = trainer.streamGiven(0) - before;
        trainer.globalUpdate(t); // its own change at once, as the others do
        trainer.rowsAhead(1, m_rowsAhead);
        const double busy = secondsSince(t0);
        const auto t1 = Clock::now();
        std::string rows;
        {
            std::lock_guard lock(m_mutex);
            mine.busy += busy;
            ++mine.minibatches;
            mine.items += items;
            apply(0, change, items);
            rows = posteriorBytes(&m_rowsAhead);
        }
        replaceRows(trainer, rows); // what its next minibatch reads, as rank 0 now holds it
        std::lock_guard lock(m_mutex);
        mine.wait += secondsSince(t1); // its exchange, as the others' sending and receiving
    }
    if (trainer.streamEnded()) {
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
        std::size_t changeAt = 0;
        const ChangeHeader h = readChange(message, m_rowsWanted, changeAt);
        std::string reply;
        {
            std::lock_guard lock(m_mutex);
            m_times[std::size_t(source)] = h.times;
            if (message.size() > changeAt)
                apply(source, message.substr(changeAt), h.items);
            if (h.ended || m_stop) {
                --m_active;
                if (m_active == 0)
                    m_othersDone.notify_all();
            }
            if (h.ended)
                continue; // a rank whose share has ended waits for nothing
            reply = m_stop ? std::string(1, kStop) : kGoOn + posteriorBytes(&m_rowsWanted);
        }
        m_ranks.post(source, kPosteriorTag, std::move(reply)); // not waiting for the rank
    }
    m_ranks.completePosts();
}

// --- ranks > 0 ---

AsyncRankTimes AsyncStream::work(Trainer& run, Communicator& ranks)
{
    StagedTrainer& trainer = staged(run, "run's trainer");
    trainer.streamOwnRows(ranks);
    ChangeHeader h;
    std::vector<std::int32_t> rows;
    // Waits for rank 0's answer to the last change: false when it says stop.
    const auto answered = [&] {
        const auto t0 = Clock::now();
        const std::string reply = ranks.receive(0, AsyncStream::kPosteriorTag);
        const bool goOn = !reply.empty() && reply[0] == kGoOn;
        if (goOn)
            replaceRows(trainer, std::string_view(reply).substr(1));
        h.times.wait += secondsSince(t0);
        return goOn;
    };
    // Posted: the rank goes on while rank 0 takes it.
    const auto sendChange = [&](const std::string& change) {
        const auto t0 = Clock::now();
        h.rows = rows.size();
        ranks.post(0, AsyncStream::kChangeTag, changeMessage(h, rows, change));
        h.times.wait += secondsSince(t0);
    };
    const auto done = [&] {
        const auto t0 = Clock::now();
        ranks.completePosts();
        h.times.wait += secondsSince(t0);
        return h.times;
    };
    // No posterior is sent to start from: every rank's trainer was built as rank 0's keeper
    // was, so it holds the same prior and the same seeded start. Pipelined: a change goes out,
    // and the next minibatch is fitted while rank 0 adds it — under the rows of rank 0's last
    // answer plus this rank's own latest change — so that a rank waits only when an answer
    // comes later than its next change is ready. An answer carries the rows of the posterior
    // that the minibatch after the next one reads, and the topics' totals.
    bool pending = false;
    for (std::int64_t t = 1;; ++t) {
        if (trainer.streamEnded()) {
            if (pending && !answered())
                return done();
            h.ended = 1;
            h.items = 0;
            rows.clear();
            sendChange({});
            return done();
        }
        const auto t1 = Clock::now();
        clearUpperVectorStateEverywhere(); // see core/base/vector_state.h
        const std::int64_t before = trainer.streamGiven(0);
        trainer.localStep(t);
        const std::string change = trainer.statistic().pack();
        h.items = trainer.streamGiven(0) - before;
        h.times.items += h.items;
        ++h.times.minibatches;
        trainer.rowsAhead(2, rows); // the answer comes after the next minibatch is fitted
        h.times.busy += secondsSince(t1);
        if (pending && !answered())
            return done();
        trainer.globalUpdate(t); // its own change, at once (rank 0's answer will hold it)
        sendChange(change);
        pending = true;
    }
}

} // namespace svi
