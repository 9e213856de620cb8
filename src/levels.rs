//! LUT levels of a Xilinx netlist, counted as a timing engineer counts them.
//!
//! Yosys' `ltp` counts every cell of a path, so each `CARRY4` of a carry
//! chain is one level: a 32-bit compare reads as 8 levels where the device
//! spends about as long as in two LUTs (the carry multiplexers are fast and
//! dedicated). [`lut_levels`] walks the flattened netlist (Yosys `write_json`
//! after `synth_xilinx`) and counts, on the longest path between sequential
//! elements (flip-flops, RAMs, SRLs, DSPs) or ports:
//! - each `LUT1`..`LUT6`, `LUT6_2`, `INV` and `MUXF7/8/9` as one level;
//! - a run through a carry chain as one level per started 16 bits: a 16-bit
//!   chain (four `CARRY4`, two `CARRY8`) is one level, a 32-bit one two.
//!
//! This is the measure issue 14 sets the budget in (at most 6 per cycle); it
//! is close to Vivado's "logic levels" with carry segments grouped.
use anyhow::{anyhow, Context, Result};
use serde_json::Value;
use std::collections::HashMap;

/// Bits of a carry chain that count as one level.
pub const CARRY_BITS_PER_LEVEL: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A LUT-level cell: LUT, INV, MUXF.
    Lut,
    /// A carry cell of this many bits.
    Carry(usize),
}

fn kind(ty: &str) -> Option<Kind> {
    match ty {
        "CARRY4" => Some(Kind::Carry(4)),
        "CARRY8" => Some(Kind::Carry(8)),
        "INV" | "MUXF7" | "MUXF8" | "MUXF9" | "LUT6_2" => Some(Kind::Lut),
        t if t.starts_with("LUT") && t[3..].parse::<u8>().is_ok_and(|n| (1..=6).contains(&n)) => Some(Kind::Lut),
        _ => None,
    }
}

/// Levels up to a cell's output, and where they came from (a cell and its
/// state), per state of the cell (one for a LUT).
type Arrival = Vec<(u64, Option<(usize, usize)>)>;

struct Cell {
    name: String,
    kind: Kind,
    /// Input nets; for a carry cell, the carry-in net separately.
    inputs: Vec<u64>,
    carry_in: Option<u64>,
    outputs: Vec<u64>,
}

/// The longest path's level count and its cells (names), of module `top` in
/// a Yosys JSON netlist.
pub fn lut_levels(netlist: &str, top: &str) -> Result<(u64, Vec<String>)> {
    let v: Value = serde_json::from_str(netlist).context("netlist JSON")?;
    let module = v.get("modules").and_then(|m| m.get(top)).ok_or_else(|| anyhow!("no module {top} in the netlist"))?;
    let mut cells = Vec::new();
    for (name, c) in module.get("cells").and_then(|c| c.as_object()).into_iter().flatten() {
        let ty = c.get("type").and_then(|t| t.as_str()).unwrap_or_default();
        let Some(kind) = kind(ty) else { continue };
        let dirs =
            c.get("port_directions").and_then(|d| d.as_object()).ok_or_else(|| anyhow!("cell {name} ({ty}) has no port directions"))?;
        let (mut inputs, mut outputs, mut carry_in) = (Vec::new(), Vec::new(), None);
        for (port, bits) in c.get("connections").and_then(|c| c.as_object()).into_iter().flatten() {
            let nets: Vec<u64> = bits.as_array().into_iter().flatten().filter_map(|b| b.as_u64()).collect();
            match dirs.get(port).and_then(|d| d.as_str()) {
                Some("output") => outputs.extend(nets),
                Some("input") if matches!(kind, Kind::Carry(_)) && port == "CI" => carry_in = nets.first().copied(),
                Some("input") => inputs.extend(nets),
                _ => {}
            }
        }
        cells.push(Cell { name: name.clone(), kind, inputs, carry_in, outputs });
    }
    // Which cell drives each net (combinational cells only: anything else is
    // a path start).
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, c) in cells.iter().enumerate() {
        for &n in &c.outputs {
            driver.insert(n, i);
        }
    }
    // Arrival per cell: for a LUT, the levels up to and including it; for a
    // carry cell, per position in a 16-bit window of the run it is in
    // (state `r`: bits of the current run through this cell, mod 16).
    let win = CARRY_BITS_PER_LEVEL;
    let mut memo: Vec<Option<Arrival>> = (0..cells.len()).map(|_| None).collect();
    let mut on_stack = vec![false; cells.len()];
    // Iterative DFS would be longer; the depth of combinational logic is
    // small (tens), so recursion is bounded by path length, not design size.
    fn arrive(
        i: usize,
        cells: &[Cell],
        driver: &HashMap<u64, usize>,
        memo: &mut Vec<Option<Arrival>>,
        on_stack: &mut Vec<bool>,
        win: usize,
    ) -> Arrival {
        if let Some(m) = &memo[i] {
            return m.clone();
        }
        if on_stack[i] {
            // A combinational loop: cut it here.
            return vec![(0, None)];
        }
        on_stack[i] = true;
        // Best arrival at the cell's ordinary inputs: (levels, from (cell, state)).
        let mut best_in: (u64, Option<(usize, usize)>) = (0, None);
        for n in cells[i].inputs.clone() {
            if let Some(&d) = driver.get(&n) {
                let a = arrive(d, cells, driver, memo, on_stack, win);
                for (r, &(lv, _)) in a.iter().enumerate() {
                    if lv > best_in.0 {
                        best_in = (lv, Some((d, r)));
                    }
                }
            }
        }
        let out = match cells[i].kind {
            Kind::Lut => vec![(best_in.0 + 1, best_in.1)],
            Kind::Carry(bits) => {
                let states = win / bits.min(win);
                let mut v = vec![(0u64, None); states];
                // Entering the chain here starts a run: one level.
                v[0] = (best_in.0 + 1, best_in.1);
                if let Some(&p) = cells[i].carry_in.as_ref().and_then(|n| driver.get(n)) {
                    if matches!(cells[p].kind, Kind::Carry(_)) {
                        let a = arrive(p, cells, driver, memo, on_stack, win);
                        for (r, &(lv, _)) in a.iter().enumerate() {
                            let next = (r + 1) % states;
                            let lv = lv + u64::from(next == 0);
                            if lv > v[next].0 {
                                v[next] = (lv, Some((p, r)));
                            }
                        }
                    }
                }
                v
            }
        };
        on_stack[i] = false;
        memo[i] = Some(out.clone());
        out
    }
    let mut best: (u64, Option<(usize, usize)>) = (0, None);
    for i in 0..cells.len() {
        let a = arrive(i, &cells, &driver, &mut memo, &mut on_stack, win);
        for (r, &(lv, _)) in a.iter().enumerate() {
            if lv > best.0 {
                best = (lv, Some((i, r)));
            }
        }
    }
    // Walk back along the recorded predecessors.
    let mut path = Vec::new();
    let mut at = best.1;
    while let Some((i, r)) = at {
        path.push(cells[i].name.clone());
        at = memo[i].as_ref().and_then(|m| m.get(r)).and_then(|x| x.1);
    }
    path.reverse();
    Ok((best.0, path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(ty: &str, ins: &[(&str, u64)], outs: &[(&str, u64)]) -> Value {
        let mut conn = serde_json::Map::new();
        let mut dirs = serde_json::Map::new();
        for (p, n) in ins {
            conn.insert(p.to_string(), serde_json::json!([n]));
            dirs.insert(p.to_string(), "input".into());
        }
        for (p, n) in outs {
            conn.insert(p.to_string(), serde_json::json!([n]));
            dirs.insert(p.to_string(), "output".into());
        }
        serde_json::json!({"type": ty, "connections": conn, "port_directions": dirs})
    }

    fn netlist(cells: Vec<(&str, Value)>) -> String {
        let cells: serde_json::Map<String, Value> = cells.into_iter().map(|(n, c)| (n.to_string(), c)).collect();
        serde_json::json!({"modules": {"top": {"cells": cells}}}).to_string()
    }

    #[test]
    fn luts_and_muxes_count_one_each_flops_cut() {
        let n = netlist(vec![
            ("ff0", cell("FDRE", &[("D", 9)], &[("Q", 1)])),
            ("a", cell("LUT6", &[("I0", 1)], &[("O", 2)])),
            ("b", cell("LUT3", &[("I0", 2)], &[("O", 3)])),
            ("m", cell("MUXF7", &[("I0", 3), ("I1", 2)], &[("O", 4)])),
            ("ff1", cell("FDRE", &[("D", 4)], &[("Q", 5)])),
            ("c", cell("LUT2", &[("I0", 5)], &[("O", 9)])),
        ]);
        let (lv, path) = lut_levels(&n, "top").unwrap();
        assert_eq!(lv, 3);
        assert_eq!(path, vec!["a", "b", "m"]);
    }

    #[test]
    fn carry_chains_count_per_16_bits() {
        // A LUT feeding a chain of 8 CARRY4 (32 bits), then a LUT: 1 + 2 + 1.
        let mut cells = vec![("l0", cell("LUT2", &[("I0", 100)], &[("O", 1)]))];
        let names: Vec<String> = (0..8).map(|k| format!("c{k}")).collect();
        for k in 0..8u64 {
            let ci = if k == 0 { 0 } else { 10 + k - 1 };
            let s = if k == 0 { 1 } else { 200 + k };
            cells.push((names[k as usize].as_str(), cell("CARRY4", &[("CI", ci), ("S", s)], &[("CO", 10 + k)])));
        }
        cells.push(("l1", cell("LUT1", &[("I0", 17)], &[("O", 300)])));
        let (lv, path) = lut_levels(&netlist(cells.clone()), "top").unwrap();
        assert_eq!(lv, 4, "{path:?}");
        assert_eq!(path.first().map(String::as_str), Some("l0"));
        assert_eq!(path.len(), 10);
        // The same chain of 4 cells (16 bits) is one level: 1 + 1 + 1.
        let short: Vec<_> = cells.iter().filter(|(n, _)| !["c4", "c5", "c6", "c7"].contains(n)).cloned().collect();
        let mut short = short;
        short.retain(|(n, _)| *n != "l1");
        short.push(("l1", cell("LUT1", &[("I0", 13)], &[("O", 300)])));
        assert_eq!(lut_levels(&netlist(short), "top").unwrap().0, 3);
    }

    #[test]
    fn a_loop_is_cut_not_endless() {
        let n = netlist(vec![("a", cell("LUT1", &[("I0", 2)], &[("O", 1)])), ("b", cell("LUT1", &[("I0", 1)], &[("O", 2)]))]);
        assert_eq!(lut_levels(&n, "top").unwrap().0, 2);
    }
}
