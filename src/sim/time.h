// Simulated time: integer picoseconds in a strong type, and cycles per clock domain.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>
#include <string>

namespace ipisim::sim {

// A point in, or a span of, simulated time in integer picoseconds. Never floating point.
class Picos {
public:
    constexpr Picos() = default;
    constexpr explicit Picos(uint64_t ps) : ps_(ps) {}

    [[nodiscard]] constexpr uint64_t count() const { return ps_; }
    [[nodiscard]] constexpr double ns() const { return static_cast<double>(ps_) / 1e3; }
    [[nodiscard]] constexpr double us() const { return static_cast<double>(ps_) / 1e6; }
    [[nodiscard]] constexpr double ms() const { return static_cast<double>(ps_) / 1e9; }
    [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ps_) / 1e12; }

    static constexpr Picos max() { return Picos(std::numeric_limits<uint64_t>::max()); }
    static constexpr Picos zero() { return Picos(0); }

    constexpr auto operator<=>(const Picos&) const = default;

    constexpr Picos& operator+=(Picos o) {
        ps_ += o.ps_;
        return *this;
    }
    // Checked: a span never goes negative, and a subtraction that would is a bug at the caller
    // (std::logic_error), not a silent zero. Where clamping is meant, say so: saturating_sub().
    constexpr Picos& operator-=(Picos o) {
        if (o.ps_ > ps_) underflow(*this, o);
        ps_ -= o.ps_;
        return *this;
    }
    friend constexpr Picos operator+(Picos a, Picos b) { return Picos(a.ps_ + b.ps_); }
    friend constexpr Picos operator-(Picos a, Picos b) {
        if (b.ps_ > a.ps_) underflow(a, b);
        return Picos(a.ps_ - b.ps_);
    }
    // a - b, or zero when b is later: for the places where "how much is left" may be nothing.
    friend constexpr Picos saturating_sub(Picos a, Picos b) { return Picos(a.ps_ > b.ps_ ? a.ps_ - b.ps_ : 0); }
    friend constexpr Picos operator*(Picos a, uint64_t k) { return Picos(a.ps_ * k); }
    friend constexpr Picos operator*(uint64_t k, Picos a) { return Picos(a.ps_ * k); }
    friend constexpr Picos operator/(Picos a, uint64_t k) { return Picos(a.ps_ / k); }
    friend constexpr uint64_t operator/(Picos a, Picos b) { return a.ps_ / b.ps_; }

private:
    [[noreturn]] static void underflow(Picos a, Picos b);
    uint64_t ps_ = 0;
};

// Human-readable rendering with the largest unit that keeps it exact-ish ("1.5 us").
std::string to_string(Picos t);

// A count of clock cycles in some clock domain.
class Cycles {
public:
    constexpr Cycles() = default;
    constexpr explicit Cycles(uint64_t n) : n_(n) {}
    [[nodiscard]] constexpr uint64_t count() const { return n_; }
    constexpr auto operator<=>(const Cycles&) const = default;
    friend constexpr Cycles operator+(Cycles a, Cycles b) { return Cycles(a.n_ + b.n_); }
    friend constexpr Cycles operator*(Cycles a, uint64_t k) { return Cycles(a.n_ * k); }

private:
    uint64_t n_ = 0;
};

// A clock domain converts cycles to time and back at its edge. Frequency is held in kHz so
// that common frequencies (2.1 GHz, 2.45 GHz) are exact; conversions round to nearest.
class ClockDomain {
public:
    constexpr ClockDomain() = default;
    constexpr explicit ClockDomain(uint64_t khz) : khz_(khz) {}
    static constexpr ClockDomain from_mhz(uint64_t mhz) { return ClockDomain(mhz * 1000); }

    [[nodiscard]] constexpr uint64_t khz() const { return khz_; }
    [[nodiscard]] constexpr Picos to_time(Cycles c) const {
        // ps = cycles * 1e9 / khz, rounded to nearest.
        const unsigned __int128 num = static_cast<unsigned __int128>(c.count()) * 1'000'000'000ULL;
        return Picos(static_cast<uint64_t>((num + khz_ / 2) / khz_));
    }
    // Whole cycles elapsed in a span (rounded down).
    [[nodiscard]] constexpr Cycles to_cycles(Picos t) const {
        const unsigned __int128 num = static_cast<unsigned __int128>(t.count()) * khz_;
        return Cycles(static_cast<uint64_t>(num / 1'000'000'000ULL));
    }

private:
    uint64_t khz_ = 1'000'000;  // 1 GHz
};

namespace literals {
constexpr Picos operator""_ps(unsigned long long v) {
    return Picos(v);
}
constexpr Picos operator""_ns(unsigned long long v) {
    return Picos(v * 1'000ULL);
}
constexpr Picos operator""_us(unsigned long long v) {
    return Picos(v * 1'000'000ULL);
}
constexpr Picos operator""_ms(unsigned long long v) {
    return Picos(v * 1'000'000'000ULL);
}
constexpr Picos operator""_s(unsigned long long v) {
    return Picos(v * 1'000'000'000'000ULL);
}
constexpr Cycles operator""_cycles(unsigned long long v) {
    return Cycles(v);
}
}  // namespace literals

}  // namespace ipisim::sim
