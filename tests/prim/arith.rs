//! The one-carry-chain arithmetic widgets (`SumLe`, `SumLe::lt`, `AddSub`),
//! their Verilog in Verilator against Rust's arithmetic: edge values and
//! random ones, including sums that carry out of 32 bits.
use anyhow::{ensure, Result};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use trimswitch_hdl::prim::widgets::{AddSub, SumLe};
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

#[test]
fn add_sub_matches_rust() -> Result<()> {
    let lib = model_of(&mut AddSub::<32>::default(), "ts_test_add_sub", "n32")?;
    let mut m = lib.instantiate();
    let (a, b, c, y) = (m.port("a")?, m.port("b")?, m.port("c")?, m.port("add_sub")?);
    for [x, z, k] in operands(20_000) {
        m.set(&a, x);
        m.set(&b, z);
        m.set(&c, k);
        m.eval();
        let want = x.wrapping_add(z).wrapping_sub(k) & 0xffff_ffff;
        ensure!(m.get(&y) == want, "{x} + {z} - {k}: got {:#x}, want {want:#x}", m.get(&y));
    }
    Ok(())
}
