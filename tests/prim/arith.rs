//! The one-carry-chain arithmetic widgets (`SumLe`, `SumLe::lt`, `AddSub`,
//! `AddSub::minus_one`, `AddSubBorrow`, `AddCarry`, the carry-select `LateSub`),
//! their Verilog in Verilator against Rust's arithmetic: edge values and
//! random ones, including sums that carry out of 32 bits. And the checksum
//! compressor tree `OnesSum` against the RFC 1071 sum, and `KeepCount`'s two
//! forms (the OR of the last lane, the parities of a packed `tkeep`).
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::prim::widgets::{ones_sum, ones_sum_depths, AddCarry, AddSub, AddSubBorrow, KeepCount, LateSub, OnesSum, SumLe};
use trimswitch_sim::harness::dut::model_of;

/// Operand values: the edges of 32 bits, then random ones.
fn operands(n: usize) -> Vec<[u64; 3]> {
    let edges = [0u64, 1, 2, 0x7fff_ffff, 0x8000_0000, 0xffff_fffe, 0xffff_ffff];
    let mut v: Vec<[u64; 3]> = vec![];
    for a in edges {
        for b in edges {
            for c in edges {
                v.push([a, b, c]);
            }
        }
    }
    let mut rng = SmallRng::seed_from_u64(14);
    for _ in 0..n {
        // Small values too, so a + b lands near c often.
        let r = |rng: &mut SmallRng| if rng.gen_bool(0.5) { rng.gen::<u32>() as u64 } else { rng.gen_range(0..300) };
        let (a, b) = (r(&mut rng), r(&mut rng));
        let c = if rng.gen_bool(0.5) { (a + b + rng.gen_range(0..3)).saturating_sub(1) & 0xffff_ffff } else { r(&mut rng) };
        v.push([a, b, c]);
    }
    v
}

#[test]
fn sum_le_and_sum_lt_match_rust() -> Result<()> {
    for strict in [false, true] {
        let (name, mut w) = if strict { ("ts_test_sum_lt", SumLe::<32>::lt()) } else { ("ts_test_sum_le", SumLe::<32>::default()) };
        let lib = model_of(&mut w, name, "n32")?;
        let mut m = lib.instantiate();
        let (a, b, c, y) = (m.port("a")?, m.port("b")?, m.port("c")?, m.port("sum_le")?);
        let mut wrong = vec![];
        for [x, z, k] in operands(20_000) {
            m.set(&a, x);
            m.set(&b, z);
            m.set(&c, k);
            m.eval();
            let want = if strict { x + z < k } else { x + z <= k };
            if (m.get(&y) == 1) != want {
                wrong.push(format!("{x} + {z} vs {k}: got {}", m.get(&y)));
            }
        }
        ensure!(wrong.is_empty(), "{name}: {} wrong, first {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
    }
    Ok(())
}

/// `SumLe::within(18)`, as admission builds it: operands below `2^18` give
/// the full comparison; bits above 18 are not read (set here to garbage that
/// would change a 32-bit answer), so the narrowing is real.
#[test]
fn sum_le_within_reads_the_low_bits_only() -> Result<()> {
    let mut w = SumLe::<32>::within(18);
    let lib = model_of(&mut w, "ts_test_sum_le_w18", "w18")?;
    let mut m = lib.instantiate();
    let (a, b, c, y) = (m.port("a")?, m.port("b")?, m.port("c")?, m.port("sum_le")?);
    let mut rng = SmallRng::seed_from_u64(18);
    let top = 1u64 << 18;
    let mut edges = vec![];
    for x in [0, 1, top / 2, top - 2, top - 1] {
        for z in [0, 1, 65_535, top - 1] {
            for k in [0, 1, x, x + z, (x + z).saturating_sub(1), top - 1] {
                edges.push([x, z, k % top]);
            }
        }
    }
    let random: Vec<[u64; 3]> = (0..20_000)
        .map(|_| {
            let (x, z) = (rng.gen_range(0..top), rng.gen_range(0..top));
            let k = if rng.gen_bool(0.5) { (x + z + rng.gen_range(0..3)).saturating_sub(1) % top } else { rng.gen_range(0..top) };
            [x, z, k]
        })
        .collect();
    let mut wrong = vec![];
    for (i, [x, z, k]) in edges.into_iter().chain(random).enumerate() {
        // Half the cases with garbage above bit 17 in every operand.
        let g = if i % 2 == 1 { rng.gen::<u32>() as u64 & !(top - 1) } else { 0 };
        m.set(&a, (x | g) & 0xffff_ffff);
        m.set(&b, (z | (g >> 1 & !(top - 1))) & 0xffff_ffff);
        m.set(&c, (k | (g << 1 & 0xffff_ffff & !(top - 1))) & 0xffff_ffff);
        m.eval();
        if (m.get(&y) == 1) != (x + z <= k) {
            wrong.push(format!("{x} + {z} vs {k} (high bits {g:#x}): got {}", m.get(&y)));
        }
    }
    ensure!(wrong.is_empty(), "within(18): {} wrong, first {:?}", wrong.len(), &wrong[..wrong.len().min(5)]);
    Ok(())
}

/// Admission's comparison width: above a queue's bytes plus two 64 KiB
/// packets (18 bits for the shipped configurations' queues), capped at 32.
#[test]
fn admission_fit_bits() {
    use trimswitch_hdl::tm::admit::fit_bits;
    assert_eq!(fit_bits(32, 128, 600, 16), 18, "netfpga-sume: 19 200 + 131 072 < 2^18");
    assert_eq!(fit_bits(64, 64, 320, 8), 18, "alveo-u250: 20 480 + 131 072 < 2^18");
    assert_eq!(fit_bits(8, 64, 1200, 4), 18);
    assert_eq!(fit_bits(64, 64, 2047, 8), 18, "131 008 + 131 072 < 2^18");
    assert_eq!(fit_bits(64, 64, 2048, 8), 19, "131 072 + 131 072 = 2^18 needs 19 bits");
    assert_eq!(fit_bits(64, 64, 1 << 23, 8), 30);
    assert_eq!(fit_bits(8, 4, 4, 1 << 40), 32, "capped at 32");
    // The bound holds: a queue full of bytes plus two maximal packets is below 2^w.
    for (k, dh, dd, dod) in [(8, 64, 1200, 4), (32, 128, 600, 16), (64, 4096, 1 << 20, 1 << 20)] {
        let w = fit_bits(k, dh, dd, dod);
        assert!((dh.max(dd) * k).max(dod) + 2 * 65_535 < 1usize << w, "{k} {dh} {dd} {dod}: {w}");
    }
}

#[test]
fn add_sub_matches_rust() -> Result<()> {
    for minus_one in [false, true] {
        let (name, mut w) =
            if minus_one { ("ts_test_add_sub_m1", AddSub::<32>::minus_one()) } else { ("ts_test_add_sub", AddSub::<32>::default()) };
        let lib = model_of(&mut w, name, "n32")?;
        let mut m = lib.instantiate();
        let (a, b, c, y) = (m.port("a")?, m.port("b")?, m.port("c")?, m.port("add_sub")?);
        for [x, z, k] in operands(20_000) {
            m.set(&a, x);
            m.set(&b, z);
            m.set(&c, k);
            m.eval();
            let want = x.wrapping_add(z).wrapping_sub(k).wrapping_sub(minus_one as u64) & 0xffff_ffff;
            ensure!(m.get(&y) == want, "{name}: {x} + {z} - {k}: got {:#x}, want {want:#x}", m.get(&y));
        }
    }
    Ok(())
}

/// `AddCarry` (`a + b + cin`, its carry out) in Verilog against `u64`
/// arithmetic: the edges (carrying out of 32 bits by
/// exactly one, by the carry in alone) and random values.
#[test]
fn add_carry_matches_rust() -> Result<()> {
    let lib = model_of(&mut AddCarry::<32>::default(), "ts_test_add_carry", "n32")?;
    let mut m = lib.instantiate();
    let (a, b, ci, sum, co) = (m.port("a")?, m.port("b")?, m.port("cin")?, m.port("sum")?, m.port("cout")?);
    for [x, z, k] in operands(20_000) {
        let cin = k & 1;
        m.set(&a, x);
        m.set(&b, z);
        m.set(&ci, cin);
        m.eval();
        let t = x + z + cin;
        let (want_s, want_c) = (t & 0xffff_ffff, t >> 32);
        ensure!(
            (m.get(&sum), m.get(&co)) == (want_s, want_c),
            "{x:#x} + {z:#x} + {cin}: Verilog ({:#x}, {}), want ({want_s:#x}, {want_c})",
            m.get(&sum),
            m.get(&co)
        );
    }
    Ok(())
}

/// `LateSub` at every split the arbiter builds it with (2 for 8 bits, 4
/// for 64, 6 for 256, 7 for 512), both variants, every small subtrahend
/// it takes (with junk above bit `w`, which it must ignore): low parts
/// carrying 0, 1 and 2 into the high part, and the edges of 32 bits.
#[test]
fn late_sub_matches_rust() -> Result<()> {
    for w in [2usize, 4, 6, 7] {
        for minus_one in [false, true] {
            let name = format!("ts_test_late_sub_{w}_{}", minus_one as u8);
            let lib = model_of(&mut LateSub::<32>::new(w, minus_one), &name, "n32")?;
            let mut m = lib.instantiate();
            let (a, b, s, y) = (m.port("a")?, m.port("b")?, m.port("s")?, m.port("diff")?);
            let mut carries = [0usize; 3];
            for (n, [x, z, k]) in operands(20_000).into_iter().enumerate() {
                let lo = k % (1 << w);
                let junk = if n % 2 == 0 { 0 } else { (k >> 8) & 0xff & !((1 << w) - 1) };
                m.set(&a, x);
                m.set(&b, z);
                m.set(&s, lo | junk);
                m.eval();
                let want = x.wrapping_add(z).wrapping_sub(lo).wrapping_sub(minus_one as u64) & 0xffff_ffff;
                ensure!(m.get(&y) == want, "{name}: {x} + {z} - {lo} (- {}): got {:#x}, want {want:#x}", minus_one as u8, m.get(&y));
                let mask = (1u64 << w) - 1;
                carries[((x & mask) + (z & mask) + (!lo & mask) + !minus_one as u64) as usize >> w] += 1;
            }
            ensure!(carries.iter().all(|&n| n > 100), "{name}: low carries (0, 1, 2) {carries:?}");
        }
    }
    Ok(())
}

/// `KeepCount` and `KeepCount::thermo` at 8, 32 and 64 lanes on every packed
/// `tkeep` (0..=K lanes from lane 0): both give the lane count. With holes
/// the OR form gives the OR of every run's end (lane + 1), and the parity
/// form some value below `2^clog2(K+1)` (the arbiter's `LateSub` needs it
/// below `2^w`).
fn keep_count_case<const K: usize>() -> Result<()> {
    let c_bits = (K + 1).next_power_of_two().trailing_zeros();
    for thermo in [false, true] {
        let name = format!("ts_test_keep_count_{K}_{}", thermo as u8);
        let mut w = if thermo { KeepCount::<K, 8>::thermo() } else { KeepCount::<K, 8>::default() };
        let lib = model_of(&mut w, &name, "k")?;
        let mut m = lib.instantiate();
        let (keep, count) = (m.port("keep")?, m.port("count")?);
        for c in 0..=K {
            let v = if c == 64 { u64::MAX } else { (1u64 << c) - 1 };
            m.set(&keep, v);
            m.eval();
            ensure!(m.get(&count) == c as u64, "{name}: {c} lanes: count {}", m.get(&count));
        }
        let mut rng = SmallRng::seed_from_u64(K as u64);
        for _ in 0..2_000 {
            let v = rng.gen::<u64>() & if K == 64 { u64::MAX } else { (1u64 << K) - 1 };
            m.set(&keep, v);
            m.eval();
            let got = m.get(&count);
            if thermo {
                ensure!(got < 1 << c_bits, "{name}: {v:#x}: count {got} not below 2^{c_bits}");
            } else {
                let ends =
                    (0..K).filter(|&i| v >> i & 1 == 1 && (i + 1 == K || v >> (i + 1) & 1 == 0)).fold(0u64, |a, i| a | (i as u64 + 1));
                ensure!(got == ends, "{name}: {v:#x}: count {got}, the OR of the run ends {ends}");
            }
        }
    }
    Ok(())
}

#[test]
fn keep_count_thermo_matches_rust() -> Result<()> {
    keep_count_case::<8>()?;
    keep_count_case::<32>()?;
    keep_count_case::<64>()
}

/// The RFC 1071 sum of 16-bit words, folded: 0xFFFF for a correct IPv4 header.
fn rfc1071(words: &[u16]) -> u32 {
    let mut s: u32 = words.iter().map(|&w| w as u32).sum();
    while s > 0xffff {
        s = (s & 0xffff) + (s >> 16);
    }
    s
}

/// The parser's test on the two words left: their sum is 0 modulo 0xFFFF.
fn zero_mod(a: u16, b: u16) -> bool {
    a == !b || (a == 0 && b == 0) || (a == 0xffff && b == 0xffff)
}

#[test]
fn ones_sum_keeps_the_checksum_and_matches_its_rust_model() -> Result<()> {
    // The parser's shape: 30 words to 6 (five compressor levels), then 6 to 2.
    assert_eq!(ones_sum_depths(30, 6).into_iter().max(), Some(5));
    assert_eq!(ones_sum_depths(6, 2).into_iter().max(), Some(3));
    let lib = model_of(&mut OnesSum::<480, 96>::default(), "ts_test_ones_sum", "w480")?;
    let mut m = lib.instantiate();
    let (inp, out) = (m.port("words")?, m.port("sum")?);
    let mut rng = SmallRng::seed_from_u64(1071);
    let mut checked_ok = 0;
    for case in 0..5000 {
        let mut w: Vec<u16> = (0..30).map(|_| rng.gen()).collect();
        match case % 5 {
            // All ones and all zeros, and sums that carry often.
            0 => w.iter_mut().for_each(|x| *x = if case % 2 == 0 { 0xffff } else { 0xff00 | (*x & 0xff) }),
            // A correct checksum: word 5 set so the header sums to 0xFFFF.
            1 | 2 => {
                w[5] = 0;
                w[5] = !(rfc1071(&w) as u16);
            }
            _ => {}
        }
        let words: Vec<u64> =
            (0..8).map(|i| (0..4).filter(|j| 4 * i + j < 30).fold(0, |a, j| a | (w[4 * i + j] as u64) << (16 * j))).collect();
        m.set_wide(&inp, &words);
        m.eval();
        let mut got = [0u64; 2];
        m.get_wide(&out, &mut got);
        let got: Vec<u16> = (0..6).map(|i| (got[i / 4] >> (16 * (i % 4))) as u16).collect();
        let want = ones_sum(&w, 6);
        ensure!(got == want, "case {case}: Verilog {got:04x?}, Rust {want:04x?}");
        // Congruent to the words' sum, and the two-word test is the RFC's.
        let total: u64 = w.iter().map(|&x| x as u64).sum();
        let part: u64 = got.iter().map(|&x| x as u64).sum();
        ensure!(total % 0xffff == part % 0xffff, "case {case}: sum {total:#x} vs {part:#x} modulo 0xFFFF");
        let two = ones_sum(&got, 2);
        let ok = rfc1071(&w) == 0xffff;
        ensure!(zero_mod(two[0], two[1]) == ok, "case {case}: test says {}, RFC 1071 {ok}", !ok);
        checked_ok += ok as usize;
    }
    ensure!(checked_ok >= 2000, "only {checked_ok} correct checksums tried");
    Ok(())
}

/// `AddSubBorrow` (`a + b - c - borrow`, one chain) in Verilog against
/// `u64` arithmetic, both borrows, random and edge operands.
#[test]
fn add_sub_borrow_matches_rust() -> Result<()> {
    let lib = model_of(&mut AddSubBorrow::<32>::default(), "ts_test_add_sub_borrow", "n32")?;
    let mut m = lib.instantiate();
    let (a, b, c, br, y) = (m.port("a")?, m.port("b")?, m.port("c")?, m.port("borrow")?, m.port("add_sub")?);
    for [x, z, k] in operands(20_000) {
        for borrow in [0u64, 1] {
            m.set(&a, x);
            m.set(&b, z);
            m.set(&c, k);
            m.set(&br, borrow);
            m.eval();
            let want = x.wrapping_add(z).wrapping_sub(k).wrapping_sub(borrow) & 0xffff_ffff;
            ensure!(m.get(&y) == want, "{x} + {z} - {k} - {borrow}: got {:#x}, want {want:#x}", m.get(&y));
        }
    }
    Ok(())
}
