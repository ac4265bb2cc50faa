// Chapter 7 on the CPU, against the kernels.cuh this test is built with (the solution's, or yours
// under COURSE_CHECK=ch07). Exercise 7.1: tile_descriptor() is read back field by field as the PTX
// ISA lays a matrix descriptor out ("Matrix Descriptor Format"), and the place where it sends the
// tensor cores for each row of a tile is compared with the place where TMA wrote that row.
// Exercise 7.4: wait_parity() drives a model of the ring of stages (mbarriers as the PTX ISA
// describes them, a producer, the copy engine, two consumers) through many interleavings; a wait
// that never ends, a consumer that reads a stage before its batch has landed, or a producer that
// refills a stage still in use fails the test. Only host code runs; no GPU is needed.
#include <kernels.cuh>

#include "catch.hpp"
#include "chapter_request.hpp"

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------------
// Exercise 7.1: the matrix descriptor, as the PTX ISA lays it out.
// ---------------------------------------------------------------------------------------------

// A field of the 64-bit descriptor: its first bit and its width.
struct Field {
  const char* name;
  int first;
  int bits;
};
constexpr Field kStart{"start address", 0, 14};
constexpr Field kLeading{"leading-dimension byte offset", 16, 14};
constexpr Field kStride{"stride byte offset", 32, 14};
constexpr Field kBase{"base offset", 49, 3};
constexpr Field kMode{"swizzle mode", 62, 2};
constexpr Field kFields[] = {kStart, kLeading, kStride, kBase, kMode};
constexpr int kFieldUnit = 16;  // the address and the offsets count 16-byte units

std::uint64_t field(std::uint64_t descriptor, Field f) {
  return (descriptor >> f.first) & ((std::uint64_t{1} << f.bits) - 1);
}

// The bits that belong to no field (the ISA leaves them reserved: zero).
std::uint64_t reserved_bits(std::uint64_t descriptor) {
  for (const Field& f : kFields)
    descriptor &= ~(((std::uint64_t{1} << f.bits) - 1) << f.first);
  return descriptor;
}

// The swizzle span, in bytes, that a mode names (the ISA's table: 0 none, then 128, 64, 32).
int swizzle_span(std::uint64_t mode) {
  constexpr int kSpans[] = {0, 128, 64, 32};
  return kSpans[mode];
}

// The largest shared memory a block of a Hopper can have (227 KiB): every tile lies below it.
constexpr unsigned kSharedWindow = 227 * 1024;

}  // namespace

TEST_CASE("ch07 exercise 7.1: the descriptor sends the tensor cores to every row TMA wrote",
          "[ch07][descriptor]") {
  COURSE_REQUIRE_EDITION("ch07");
  // TMA writes a box of rows of kBatch floats, one after the other from the tile's start, then
  // swizzles each group of rows in place. A descriptor of the 128-byte swizzle reads row r of a
  // K-major tile at start + (r / 8) * stride + (r % 8) * span (before the swizzle): the rows of a
  // group one span apart, the groups one stride apart. The kernel's tiles start on 1024 bytes.
  constexpr int kRowBytes = ch07::kBatch * static_cast<int>(sizeof(float));
  INFO("exercise 7.1, tile_descriptor() in " COURSE_KERNELS_FILE "; hints: scripts/hint.sh 7.1");
  int checked = 0;
  for (unsigned address = 0; address < kSharedWindow; address += ch07::kSwizzleAtomBytes) {
    const std::uint64_t d = ch07::tile_descriptor(address);
    INFO("tile at shared address " << address << " (0x" << std::hex << address << "): descriptor 0x"
                                   << d << std::dec);
    INFO("fields: start " << field(d, kStart) << ", leading " << field(d, kLeading) << ", stride "
                          << field(d, kStride) << ", base " << field(d, kBase) << ", mode "
                          << field(d, kMode));
    {
      INFO("bits outside the ISA's fields: 0x" << std::hex << reserved_bits(d) << std::dec);
      REQUIRE(reserved_bits(d) == 0);
    }
    {
      INFO("the start address field counts 16-byte units of the shared window");
      REQUIRE(field(d, kStart) * kFieldUnit == address);
    }
    {
      INFO("the swizzle mode must name the span the tensor maps ask TMA for: "
           << ch07::kSwizzleBytes << " bytes (this one names " << swizzle_span(field(d, kMode))
           << ", 0 = none)");
      REQUIRE(swizzle_span(field(d, kMode)) == ch07::kSwizzleBytes);
    }
    {
      INFO("a tile that starts where the swizzle pattern starts has base offset 0");
      REQUIRE(field(d, kBase) == 0);
    }
    const long long span = swizzle_span(field(d, kMode));
    const long long stride = static_cast<long long>(field(d, kStride)) * kFieldUnit;
    for (int row = 0; row < ch07::kTileCols; ++row) {  // B^T's tile, the taller one: 256 rows
      const long long read = (row / 8) * stride + (row % 8) * span;
      const long long written = static_cast<long long>(row) * kRowBytes;
      INFO("row " << row << ": the tensor cores read it at byte " << read
                  << " of the tile, TMA wrote it at byte " << written);
      REQUIRE(read == written);
    }
    ++checked;
  }
  CHECK(checked == static_cast<int>(kSharedWindow / ch07::kSwizzleAtomBytes));
}

// ---------------------------------------------------------------------------------------------
// Exercise 7.4: the ring, modelled.
// ---------------------------------------------------------------------------------------------

namespace {

// An mbarrier as the PTX ISA describes it: the current phase completes when its pending arrivals
// have all arrived and its transaction count (bytes announced minus bytes landed) is zero; the
// next phase then expects the same number of arrivals. try_wait.parity(p) returns true while the
// current phase's parity differs from p (the phase of parity p before it has completed).
struct Barrier {
  int expected = 0;
  int pending = 0;
  long long transactions = 0;
  long long completed = 0;  // phases completed so far

  void init(int arrivals) { expected = pending = arrivals; }
  void complete_if_done() {
    if (pending == 0 && transactions == 0) {
      ++completed;
      pending = expected;
    }
  }
  void arrive(long long expect_bytes) {
    transactions += expect_bytes;
    --pending;
    complete_if_done();
  }
  void complete_tx(long long bytes) {
    transactions -= bytes;
    complete_if_done();
  }
  bool try_wait(unsigned parity) const { return static_cast<unsigned>(completed % 2) != parity; }
};

using Parity = unsigned (*)(int batch, int stages, bool producer);

// One run of the ring: @p stages stages, @p batches batches, two consumers. Specialized: a
// producer waits on empty[s] before it fills stage s, and each consumer arrives on empty[s] once
// it no longer reads the stage (@p lag batches later: 0, at once; 1, after it has started the
// next batch). Otherwise (steps 1 and 2) the first consumer also copies, Stages - 1 batches ahead,
// and both meet at a block barrier after every batch. Copies land and agents move in an order
// drawn from @p seed. Returns "" or what went wrong.
class Ring {
 public:
  Ring(Parity parity, int stages, int batches, bool specialized, int lag, unsigned seed)
      : parity_(parity),
        stages_(stages),
        batches_(batches),
        specialized_(specialized),
        lag_(lag),
        random_(seed),
        full_(stages),
        empty_(stages),
        held_(stages, -1),
        released_(batches, 0) {
    for (int s = 0; s < stages; ++s) {
      full_[s].init(1);
      empty_[s].init(kConsumers);
    }
  }

  std::string run() {
    if (!specialized_) {  // the first consumer copies the first Stages - 1 batches
      for (int b = 0; b < stages_ - 1 && b < batches_; ++b)
        copy(b);
    }
    while (error_.empty()) {
      std::vector<int> movers;  // 0..kConsumers-1: consumers; kConsumers: producer; +1: landing
      for (int c = 0; c < kConsumers; ++c) {
        if (can_move(c))
          movers.push_back(c);
      }
      if (specialized_ && produced_ < batches_ &&
          empty_[produced_ % stages_].try_wait(parity_(produced_, stages_, true)))
        movers.push_back(kConsumers);
      if (!in_flight_.empty())
        movers.push_back(kConsumers + 1);
      if (movers.empty())
        break;
      const int mover = movers[random_() % movers.size()];
      if (mover < kConsumers)
        move(mover);
      else if (mover == kConsumers)
        copy(produced_);
      else
        land();
    }
    if (!error_.empty())
      return error_;
    for (int c = 0; c < kConsumers; ++c) {
      if (consumer_[c].next < batches_)
        return stuck(c);
    }
    return "";
  }

 private:
  static constexpr int kConsumers = 2;
  static constexpr long long kBytes = ch07::kStageBytes;

  struct Consumer {
    int next = 0;             // the batch it waits for next
    bool copied = false;      // steps 1-2, the first consumer: it has copied for this batch
    bool at_barrier = false;  // steps 1-2: done with batch next - 1, waiting at __syncthreads
  };
  struct Copy {
    int batch;
    int stage;
  };

  std::string where(int batch) const {
    std::ostringstream out;
    out << "batch " << batch << " (stage " << batch % stages_ << ", " << stages_ << " stages, "
        << batches_ << " batches, " << (specialized_ ? "producer warpgroup" : "thread 0 copies")
        << ")";
    return out.str();
  }

  // The producer (or thread 0) announces the batch's bytes on full[s] and starts its copy.
  void copy(int batch) {
    const int s = batch % stages_;
    const int previous = batch - stages_;  // the batch the stage held before
    if (previous >= 0 && released_[previous] < kConsumers) {
      error_ = "the producer's wait (parity " + std::to_string(parity_(batch, stages_, true)) +
               ") let it refill the stage for " + where(batch) + " while a consumer still reads " +
               "batch " + std::to_string(previous);
      return;
    }
    full_[s].arrive(kBytes);
    held_[s] = -1;  // being overwritten
    in_flight_.push_back({batch, s});
    if (specialized_)
      ++produced_;
  }

  // The copy engine: one copy in flight lands, its bytes counted on full[s].
  void land() {
    const std::size_t i = random_() % in_flight_.size();
    const Copy landed = in_flight_[i];
    in_flight_.erase(in_flight_.begin() + static_cast<long>(i));
    held_[landed.stage] = landed.batch;
    full_[landed.stage].complete_tx(kBytes);
  }

  bool can_move(int c) const {
    const Consumer& me = consumer_[c];
    if (me.at_barrier) {  // steps 1-2: the block barrier lets both through together
      for (const Consumer& other : consumer_) {
        if (!other.at_barrier)
          return false;
      }
      return true;
    }
    if (me.next >= batches_)
      return false;
    if (copies_ahead(c))
      return true;
    return full_[me.next % stages_].try_wait(parity_(me.next, stages_, false));
  }

  // Steps 1-2: the first consumer copies a batch Stages - 1 ahead before it waits for its own.
  bool copies_ahead(int c) const {
    const Consumer& me = consumer_[c];
    return !specialized_ && c == 0 && !me.copied && me.next + stages_ - 1 < batches_;
  }

  // A consumer takes its next step: past the block barrier, a copy, or past its wait on full[s].
  void move(int c) {
    Consumer& me = consumer_[c];
    if (me.at_barrier) {  // both are done with batch next - 1: it is released
      for (Consumer& other : consumer_)
        other.at_barrier = false;
      released_[me.next - 1] = kConsumers;
      return;
    }
    const int batch = me.next;
    const int s = batch % stages_;
    if (copies_ahead(c)) {
      copy(batch + stages_ - 1);
      me.copied = true;
      return;
    }
    if (held_[s] != batch) {
      error_ = "a consumer's wait (parity " + std::to_string(parity_(batch, stages_, false)) +
               ") for " + where(batch) + " returned before the batch had landed: the stage " +
               (held_[s] < 0 ? std::string("was still being copied into")
                             : "held batch " + std::to_string(held_[s]));
      return;
    }
    ++me.next;
    me.copied = false;
    if (!specialized_) {
      me.at_barrier = true;
      return;
    }
    const int done = batch - lag_;  // the batch this consumer no longer reads
    if (done >= 0) {
      ++released_[done];
      empty_[done % stages_].arrive(0);
    }
  }

  std::string stuck(int c) const {
    const int batch = consumer_[c].next;
    if (specialized_ && produced_ < batches_ && produced_ <= batch) {
      const int s = produced_ % stages_;
      return "the producer's wait on empty[" + std::to_string(s) + "] (parity " +
             std::to_string(parity_(produced_, stages_, true)) + ") for " + where(produced_) +
             " never ends: the barrier has completed " + std::to_string(empty_[s].completed) +
             " phases and nothing will complete another";
    }
    const int s = batch % stages_;
    return "a consumer's wait on full[" + std::to_string(s) + "] (parity " +
           std::to_string(parity_(batch, stages_, false)) + ") for " + where(batch) +
           " never ends: the barrier has completed " + std::to_string(full_[s].completed) +
           " phases and nothing will complete another";
  }

  Parity parity_;
  int stages_;
  int batches_;
  bool specialized_;
  int lag_;
  std::minstd_rand random_;
  std::vector<Barrier> full_;
  std::vector<Barrier> empty_;
  std::vector<int> held_;      // the batch whose bytes have all landed in each stage; -1: none
  std::vector<int> released_;  // how many consumers have released each batch
  std::vector<Copy> in_flight_;
  std::string error_;
  Consumer consumer_[kConsumers];
  int produced_ = 0;  // specialized: the next batch the producer copies
};

// The first failure of the ring with @p parity over stage counts 1 to 5, batch counts around
// them, both kinds of block, both release lags and 40 interleavings each; "" if none.
std::string ring_failure(Parity parity) {
  for (bool specialized : {false, true}) {
    for (int stages = 1; stages <= 5; ++stages) {
      for (int batches : {1, stages - 1, stages, stages + 1, 2 * stages + 1, 3 * stages + 2, 13}) {
        if (batches < 1)
          continue;
        // One batch in flight needs a second stage to fill meanwhile.
        for (int lag = 0; lag <= (specialized && stages > 1 ? 1 : 0); ++lag) {
          for (unsigned seed = 1; seed <= 40; ++seed) {
            const std::string failure = Ring(parity, stages, batches, specialized, lag, seed).run();
            if (!failure.empty())
              return failure;
          }
        }
      }
    }
  }
  return "";
}

}  // namespace

TEST_CASE("ch07 exercise 7.4: the ring runs every batch, in every order, with these parities",
          "[ch07][parity]") {
  COURSE_REQUIRE_EDITION("ch07");
  const std::string failure = ring_failure(ch07::wait_parity);
  INFO("exercise 7.4, wait_parity() in " COURSE_KERNELS_FILE "; hints: scripts/hint.sh 7.4");
  INFO(failure);
  CHECK(failure.empty());
}

#ifdef COURSE_SOLUTION_EDITION
TEST_CASE("the ring model catches parities that would hang or race", "[ch07][parity]") {
  // Planted mistakes: the placeholder's constant 0, a constant 1, and the batch's own parity.
  const Parity planted[] = {
      [](int, int, bool) { return 0u; },
      [](int, int, bool) { return 1u; },
      [](int batch, int, bool) { return static_cast<unsigned>(batch % 2); },
  };
  for (Parity parity : planted)
    CHECK_FALSE(ring_failure(parity).empty());
  // What each kind of failure reads like: a producer's first wait that never ends (4 stages, 8
  // batches), a consumer's wait that returns at once (one stage).
  CHECK(Ring(planted[0], 4, 8, true, 1, 1).run().find("never ends") != std::string::npos);
  CHECK(Ring(planted[1], 1, 2, false, 0, 1).run().find("before the batch had landed") !=
        std::string::npos);
}
#endif
