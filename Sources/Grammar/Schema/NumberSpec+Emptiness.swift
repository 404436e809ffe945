/// Deciding at compile time that a number terminal can never complete.
///
/// The automaton prunes prefixes against the bounds one at a time, which cannot see that the
/// bounds contradict each other (`minimum: 5, maximum: 1`): a lone `0` stays viable because some
/// continuation (`0.1e2`) reaches past the minimum and another stays under the maximum. A terminal
/// with no value at all is compiled to `fail` instead, so its first mask is empty and
/// end-of-generation is never allowed.
extension NumberSpec {
    /// True when no number satisfies the bounds (and, for integers, no integer lies between them).
    /// Conservative: false when emptiness is not decided here (e.g. `multipleOf` gaps).
    var provablyEmpty: Bool {
        if let allowed, allowed.isEmpty { return true }
        guard let lo = minimum, let hi = maximum else { return false }
        let c = ExactDecimal.compare(lo, hi)
        if c > 0 || (c == 0 && (minimumExclusive || maximumExclusive)) { return true }
        guard integer == .digitsOnly || integer == .integralValue else { return false }
        // The least and greatest admitted integers; empty when they cross.
        guard var least = lo.integerCeiling, var greatest = hi.integerFloor else { return false }
        if minimumExclusive && ExactDecimal.compare(least, lo) == 0 {
            guard let next = least.adding(1) else { return false }
            least = next
        }
        if maximumExclusive && ExactDecimal.compare(greatest, hi) == 0 {
            guard let previous = greatest.adding(-1) else { return false }
            greatest = previous
        }
        return ExactDecimal.compare(least, greatest) > 0
    }
}

extension ExactDecimal {
    /// Values with more digits than this are not rounded here (callers stay conservative).
    private static let roundingDigitLimit = 4_096

    /// The value with its fraction dropped (toward zero).
    private var truncated: ExactDecimal {
        if isInteger { return self }
        let keep = digits.count + exponent
        if keep <= 0 { return ExactDecimal(negative: false, digits: [], exponent: 0) }
        return ExactDecimal(negative: negative, digits: Array(digits.prefix(keep)), exponent: 0)
    }

    /// The least integer ≥ self; nil when it has too many digits to compute.
    var integerCeiling: ExactDecimal? {
        if isInteger { return self }
        return negative ? truncated : truncated.adding(1)
    }

    /// The greatest integer ≤ self; nil when it has too many digits to compute.
    var integerFloor: ExactDecimal? {
        if isInteger { return self }
        return negative ? truncated.adding(-1) : truncated
    }

    /// self + delta (delta is ±1) for an integer self; nil when it has too many digits.
    func adding(_ delta: Int) -> ExactDecimal? {
        precondition(isInteger && (delta == 1 || delta == -1))
        guard digits.count + exponent <= ExactDecimal.roundingDigitLimit else { return nil }
        if isZero { return ExactDecimal(negative: delta < 0, digits: [1], exponent: 0) }
        // |self| grows when delta has self's sign, shrinks otherwise (never below zero: |self| ≥ 1).
        var full = digits + [UInt8](repeating: 0, count: exponent)
        if negative == (delta < 0) {
            var i = full.count - 1
            while i >= 0 && full[i] == 9 { full[i] = 0; i -= 1 }
            if i >= 0 { full[i] += 1 } else { full.insert(1, at: 0) }
        } else {
            var i = full.count - 1
            while full[i] == 0 { full[i] = 9; i -= 1 }
            full[i] -= 1
        }
        return ExactDecimal(negative: negative, digits: full, exponent: 0)
    }
}
