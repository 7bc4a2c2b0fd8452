// Same seed, same fingerprint; another seed, another fingerprint.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "sim/engine.h"
#include "sim/rng.h"
#include "sim/signal.h"

using namespace ipisim::sim;
using namespace ipisim::sim::literals;

namespace {

// A small random ping network: each of n processes delays a random time then notifies a
// random other process's signal.
uint64_t run_network(uint64_t seed, int n) {
    Engine eng;
    std::vector<std::unique_ptr<Signal>> sigs;
    for (int i = 0; i < n; ++i) sigs.push_back(std::make_unique<Signal>());
    std::vector<Rng> rngs;
    for (int i = 0; i < n; ++i) rngs.push_back(Rng::stream(seed, "cpu." + std::to_string(i)));
    auto sender = [&](int i) -> Proc {
        for (int k = 0; k < 200; ++k) {
            co_await delay(eng, Picos(rngs[i].uniform(1000, 1'000'000)));
            sigs[rngs[i].uniform(0, n - 1)]->notify_all();
        }
    };
    auto receiver = [&](int i) -> Proc {
        for (;;) co_await sigs[i]->wait();
    };
    for (int i = 0; i < n; ++i) eng.spawn("tx", sender(i));
    for (int i = 0; i < n; ++i) eng.spawn("rx", receiver(i));
    eng.run();
    return eng.fingerprint();
}

}  // namespace

TEST(Determinism, the_same_seed_gives_the_same_fingerprint) {
    EXPECT_EQ(run_network(7, 16), run_network(7, 16));
}

TEST(Determinism, another_seed_gives_another_fingerprint) {
    EXPECT_NE(run_network(7, 16), run_network(8, 16));
}

TEST(Determinism, component_streams_are_independent_of_each_other) {
    Rng a1 = Rng::stream(1, "cpu.0");
    Rng b = Rng::stream(1, "cpu.1");
    Rng a2 = Rng::stream(1, "cpu.0");
    (void)b.next();
    EXPECT_EQ(a1.next(), a2.next());
    EXPECT_NE(Rng::stream(1, "cpu.0").next(), Rng::stream(1, "cpu.1").next());
}

TEST(Determinism, the_generator_reproduces_its_reference_sequence) {
    // Golden values pin the generator and the seeding, so results stay bit-identical.
    Rng r(1);
    const uint64_t first = r.next();
    Rng r2(1);
    EXPECT_EQ(first, r2.next());
    uint64_t sm = 0;
    EXPECT_EQ(splitmix64(sm), 0xe220a8397b1dcdafULL);
}

TEST(Rng, uniform_stays_within_bounds_and_covers_them) {
    Rng r(3);
    bool lo = false, hi = false;
    for (int i = 0; i < 10000; ++i) {
        uint64_t v = r.uniform(5, 9);
        ASSERT_GE(v, 5u);
        ASSERT_LE(v, 9u);
        lo |= v == 5;
        hi |= v == 9;
    }
    EXPECT_TRUE(lo && hi);
}

TEST(Rng, exponential_has_the_requested_mean) {
    Rng r(11);
    double sum = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) sum += r.exponential(50.0);
    EXPECT_NEAR(sum / n, 50.0, 0.5);
}
