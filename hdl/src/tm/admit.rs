//! `TmAdmit`: the traffic manager's packet-atomic admission, ideal and meter
//! mode (`docs/trimming.md`, "Queues and admission"; seed 000 §3.1: trim when
//! the data queue is full, return to sender when the header queue is full
//! too; meter mode: seed 001, seed 000 §4-5, deflect on drop).
//!
//! Decides at a packet's first beat, from `tuser` and the exact occupancy of
//! the queues (bytes and RAM words, reserved at admission and freed when the
//! packet leaves its queue), one of:
//!
//! | code | fate | counter |
//! |---|---|---|
//! | 0 | drop: `dest_port >= ports` or `length == 0` | `drop_bad_pkts` |
//! | 1 | header queue of `dest_port`, whole (`prio`) | `enq_h_pkts` |
//! | 2 | data queue of `dest_port`, whole | `enq_d_pkts` |
//! | 3 | trimmed into the header queue of `dest_port` | `trim_packets` |
//! | 4 | trimmed and returned into the header queue of `src_port` | `rts_packets` |
//! | 5 | drop: `prio` and the header queue is full | `drop_ctrl_pkts` |
//! | 6 | drop: data queue full, not trimmable | `drop_data_pkts` |
//! | 7 | drop: trimmable, no room for the header anywhere | `dropped_trim_packets` |
//! | 8 | meter mode: deflected (DoD): trimmed into the DoD FIFO, notify `dest_port` | `dod_trim_packets` |
//! | 9 | meter mode: data queue and DoD FIFO full | `drop_dod_pkts` |
//!
//! Order of the tests: bad (0); a packet coming back from the DoD FIFO
//! ([`RECIRC_BIT`]) takes the trim path (3, 4, 7); `prio` (1, 5); a packet
//! the meters marked ([`METER_TRIM_BIT`], with `trim_ok`, not `prio`) takes
//! the trim path;
//! data queue (2); not trimmable (6); in meter mode (`meter_en`) the DoD FIFO
//! (8, 9); else the trim path. Packets coming back are not counted in
//! `in_pkts`, so at rest `in_pkts + dod_trim_packets` = the sum of the fates.
//!
//! A queue of `limit` bytes and `depth` words takes `L` bytes when
//! `bytes + L <= limit` and `words + ceil(L / K) <= depth`, so the queue's
//! memory can never overflow. The keep length of a trimmed packet is its trim
//! length (NDP, else by IP version), at least its headers, at most 128 and at
//! most the packet; [`TmPre`], the register stage in front, computes it and the
//! word counts into `tuser` bits [`PRE_KL_LSB`].. (so the decision starts from
//! registers: logic depth 20 instead of 32, `docs/resources.md`).
//!
//! Two stages (issue 14). A beat enters a decision register from `s_*`; a
//! first beat is decided there. Its fit tests are computed the cycle before,
//! while it waits at `s_*`, and registered with it, so the decision starts
//! from flip-flops and each test's carry chain ends in one. The occupancy
//! those tests read does not yet include what this cycle's decision reserves,
//! so each test is computed in every variant of that reservation in the same
//! queue (nothing; the packet ahead's length or keep length; for the DoD FIFO
//! its keep words, or the words it frees coming back), against bounds the
//! packet ahead registered as "bound minus my size" when it entered; the
//! decision register keeps the variant the decision picks (one-hot, applied
//! after the register). A first beat that waits is tested again each cycle
//! against the occupancy of that cycle. So a decision sees every earlier
//! decision of its traffic manager exactly, and the departures (frees) of the
//! cycles before the last one: a freed queue is offered a cycle later. With
//! several pipelines the switch holds a pipeline for a cycle after another
//! reserved in a queue its packet may take (`crate::top::switch`). One more
//! cycle of latency; one decision per cycle as before.
//!
//! The admitted packet leaves with `tuser` rewritten for the stages after:
//! `flags` TRIMMED (codes 3, 4, 8) and RETURNED (4), `length` = keep (3, 4,
//! 8), `dest_port` = `src_port` (4), the queue index `2 * port + (data ? 1 : 0)`
//! (the DoD FIFO's `2 * ports` for 8) at [`QUEUE_LSB`], and [`RECIRC_BIT`] for 8. Dropped packets are consumed at one beat per cycle
//! (a dropped first beat, like any first beat, when the output slice has room).
//!
//! Ports:
//! - `clock`, `reset`: rising-edge clock, synchronous active-high reset.
//! - `s_*`: input (wide `tuser` with [`TmPre`]'s fields); `m_*`: output
//!   (registered; `tuser` bits 88..128 cleared, but a GRT's `t_in`, which
//!   comes in at bits 78..88 and 90..96, leaves at 112..128, [`crate::meta`]).
//! - `occ_bytes[q]`, `occ_words[q]` in: the occupancy of queue `q` (2 per port).
//! - `enq` out (one cycle, at the first beat): a packet takes `enq_bytes`
//!   bytes and `enq_words` words of queue `enq_q`. The same amounts before
//!   the decision picks them: `enq_trim` (the packet is trimmed: it takes
//!   `enq_kl`/`enq_w_kl`, else `enq_len`/`enq_w_len`), so an occupancy
//!   count adds both in parallel and the decision selects after its carry
//!   chains ([`crate::tm::occupancy::TmOcc`]; issue 14). `enq_dod`: the
//!   packet goes to the DoD FIFO (`enq` with `enq_q` the FIFO's; it then
//!   takes `enq_w_kl` words).
//! - `limit_h`, `limit_d` (bytes, 32 bits), `rts_en`, `meter_en`: run-time
//!   registers (the trim lengths are [`TmPre`]'s). The limits are registered
//!   (clamped to what the fit tests compare, [`fit_bits`]): a new limit
//!   decides from the second cycle after it is set.
//! - `occ_dod_words` in: the DoD FIFO's occupancy in words (reserved at a
//!   deflection, freed when the packet comes back, below); it takes a
//!   trimmed packet of `kl` bytes when `occ + ceil(kl / K) <= depth_dod`.
//! - `dec_valid` out (one cycle per packet, at its first beat): the decision
//!   `dec_code`, whether the packet came back from the DoD FIFO
//!   (`dec_recirc`), its destination `dec_port` and length `dec_bytes` as it
//!   arrived (a packet coming back frees `ceil(dec_bytes / K)` DoD words).
//! - `counters[c]` out, `clear[c]` in: the ten fate counters above in code
//!   order, then `in_pkts` (32 bits, wrap).
//! - `want` out: a first beat waits for its decision this cycle, for
//!   `want_dest` (its `dest_port`) and `want_src` (its `src_port`, where a
//!   return to sender goes); `hold` in: the decision may not be taken this
//!   cycle, the first beat waits (`s_tready` low). With several pipelines
//!   sharing the queues' occupancy (`docs/switch.md`), the switch holds all
//!   but one pipeline that wants a port in a cycle, so no two pipelines
//!   reserve the same queue's last bytes at once. Tie `hold` low when alone.
use crate::axis::bundle::{AxisSink, AxisSource};
use crate::axis::skid::{AxisPipe, AxisSkid};
use crate::meta::shift::{SH_T_IN, SH_T_IN_HI_OUT};
use crate::meta::{
    DEST_PORT_LSB, FLAGS_LSB, GRT_BIT, IHL_LSB, L3_IPV4, L3_LSB, L3_OFF_LSB, L4_LSB, L4_NDP, L4_OFF_LSB, L4_UDP, LENGTH_LSB, PRIO_BIT,
    SRC_PORT_LSB, TRIM_OK_BIT, T_IN_HI_LSB, T_IN_LO_LSB,
};
use crate::prim::widgets::{vec_of, DffR, SumLe};
use rust_hdl::prelude::*;

/// Bit position of the traffic manager's queue index in `tuser` (8 bits,
/// internal to the traffic manager).
pub const QUEUE_LSB: usize = 80;
/// Bit of `tuser` (internal) marking a trimmed packet that comes back from
/// the DoD FIFO to admission.
pub const RECIRC_BIT: usize = 89;
pub use crate::tm::meter::METER_TRIM_BIT;
/// Bits of `tuser` (internal, from [`TmPre`] to [`TmAdmit`]) holding the precomputed keep length (8 bits), its words (8) and
/// the packet's words (16), up to bit 128. Cleared in the output.
pub const PRE_KL_LSB: usize = 96;
/// Words of the keep length (8 bits), after [`PRE_KL_LSB`].
pub const PRE_W_KL_LSB: usize = PRE_KL_LSB + 8;
/// Words of the whole packet (16 bits), after [`PRE_W_KL_LSB`].
pub const PRE_W_LEN_LSB: usize = PRE_W_KL_LSB + 8;
/// The `TRIM_LEN` register word: bytes kept of a trimmed NDP, IPv4 and IPv6
/// packet, 8 bits each.
pub mod trim_len {
    crate::gen::unroll::named_indices! {
        TRIM_LEN_NDP = 0;
        TRIM_LEN_IPV4 = 8;
        TRIM_LEN_IPV6 = 16;
    }
}
use trim_len::{TRIM_LEN_IPV4, TRIM_LEN_IPV6, TRIM_LEN_NDP};

/// Number of fate codes.
pub const N_CODES: usize = 10;
/// Number of fate counters plus `in_pkts`.
pub const N_COUNTERS: usize = 11;
/// Counter names in `counters` order (register-map order).
pub const COUNTER_NAMES: [&str; N_COUNTERS] = [
    "drop_bad_pkts",
    "enq_h_pkts",
    "enq_d_pkts",
    "trim_packets",
    "rts_packets",
    "drop_ctrl_pkts",
    "drop_data_pkts",
    "dropped_trim_packets",
    "dod_trim_packets",
    "drop_dod_pkts",
    "in_pkts",
];

/// [`TmAdmit`]'s registered caps: a bound minus what the packet in the
/// decision register would reserve (0 when that is more than the bound),
/// taken when the packet enters the register, for the fit tests of the packet
/// behind it. In order: `limit_h - len`, `limit_h - kl`, `depth_h - w_len`,
/// `depth_h - w_kl`, `limit_d - len`, `depth_d - w_len`, `depth_dod - w_kl`,
/// and `depth_dod + w_len` (a packet back from the DoD FIFO frees its words).
const N_CAP: usize = 8;

/// Fit tests ([`SumLe`]) of [`TmAdmit`]: 25 for the packet at the input, one
/// per queue test and per variant of what the packet ahead reserves in the same
/// cycle; 9 for the packet in the decision register when it stays there.
const N_LE: usize = 34;

#[derive(LogicBlock)]
pub struct TmAdmit<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub occ_bytes: Vec<Signal<In, Bits<32>>>,
    pub occ_words: Vec<Signal<In, Bits<32>>>,
    pub occ_dod_words: Signal<In, Bits<32>>,
    pub enq: Signal<Out, Bit>,
    pub enq_q: Signal<Out, Bits<8>>,
    pub enq_bytes: Signal<Out, Bits<32>>,
    pub enq_words: Signal<Out, Bits<32>>,
    pub enq_trim: Signal<Out, Bit>,
    pub enq_len: Signal<Out, Bits<32>>,
    pub enq_kl: Signal<Out, Bits<32>>,
    pub enq_w_len: Signal<Out, Bits<32>>,
    pub enq_w_kl: Signal<Out, Bits<32>>,
    pub enq_dod: Signal<Out, Bit>,
    pub limit_h: Signal<In, Bits<32>>,
    pub limit_d: Signal<In, Bits<32>>,
    pub rts_en: Signal<In, Bit>,
    pub meter_en: Signal<In, Bit>,
    pub dec_valid: Signal<Out, Bit>,
    pub dec_code: Signal<Out, Bits<4>>,
    pub dec_recirc: Signal<Out, Bit>,
    pub dec_port: Signal<Out, Bits<8>>,
    pub dec_bytes: Signal<Out, Bits<16>>,
    pub counters: Vec<Signal<Out, Bits<32>>>,
    pub clear: Vec<Signal<In, Bit>>,
    pub want: Signal<Out, Bit>,
    pub want_dest: Signal<Out, Bits<8>>,
    pub want_src: Signal<Out, Bits<8>>,
    pub hold: Signal<In, Bit>,
    ports: Constant<Bits<8>>,
    port_id: Vec<Constant<Bits<8>>>,
    /// The port bits of an index (`next_power_of_two(ports) - 1`): queues are
    /// selected by those alone (a `dest_port >= ports` is dropped whatever
    /// it reads), so the selection is a multiplexer, not a compare per port.
    sel_mask: Constant<Bits<8>>,
    depth_h: Constant<Bits<32>>,
    depth_d: Constant<Bits<32>>,
    depth_dod: Constant<Bits<32>>,
    dod_q: Constant<Bits<8>>,
    recirc_mark: Constant<Bits<U>>,
    code_id: Vec<Constant<Bits<4>>>,
    var_id: Vec<Constant<Bits<2>>>,
    user_clear: Constant<Bits<U>>,
    /// The decision register: the beat being decided (first beat) or passed.
    pipe: AxisPipe<D, K, U>,
    out: AxisSkid<D, K, U>,
    le: Vec<SumLe<32>>,
    /// `2^w - 1`, `w` = [`fit_bits`]: the fit tests read the low `w` bits of
    /// their operands, and the byte limits are clamped to this (registered,
    /// `lim_h` / `lim_d`: a new limit decides from the second cycle after it
    /// is written). Exact: an occupancy plus a packet's size (or two, with
    /// the packet ahead's) never reaches it, so a limit above it passes
    /// every test either way (issue 14: 34-bit carry chains were 20).
    fit_max: Constant<Bits<32>>,
    lim_h: DFF<Bits<32>>,
    lim_d: DFF<Bits<32>>,
    cap: Vec<DffR<Bits<32>>>,
    cap_in: Vec<Signal<Local, Bits<32>>>,
    cap_bound: Vec<Signal<Local, Bits<32>>>,
    cap_take: Vec<Signal<Local, Bits<32>>>,
    /// The fit tests of the packet in the decision register, each in every
    /// variant (`v_*`: bit 0 nothing reserved ahead, 1 the length, 2 the
    /// keep length reserved ahead, 3 the packet stayed), and which variant
    /// holds (`r_sel_*`, its number, registered with them: a 4:1 multiplexer,
    /// one LUT level): the selection happens after
    /// the register, so the tests' carry chains end in flip-flops.
    v_h: DffR<Bits<4>>,
    v_ht: DffR<Bits<4>>,
    v_d: DffR<Bits<4>>,
    v_hs: DffR<Bits<4>>,
    v_dod: DffR<Bits<4>>,
    r_sel_h: DffR<Bits<2>>,
    r_sel_d: DffR<Bits<2>>,
    r_sel_s: DffR<Bits<2>>,
    r_sel_dod: DffR<Bits<2>>,
    r_bad: DffR<Bit>,
    fit_h: Signal<Local, Bit>,
    fit_d: Signal<Local, Bit>,
    fit_ht: Signal<Local, Bit>,
    fit_hs: Signal<Local, Bit>,
    fit_dod: Signal<Local, Bit>,
    in_pkt: DffR<Bit>,
    drop_cur: DffR<Bit>,
    user_r: DffR<Bits<U>>,
    ev_valid: DffR<Bit>,
    ev_code: DffR<Bits<4>>,
    ev_in: DffR<Bit>,
    count: Vec<DffR<Bits<32>>>,
    // The packet at the input (`s_*`, TmPre's register): its fields, the
    // occupancy of its queues, its bad test.
    s_dest: Signal<Local, Bits<8>>,
    s_src: Signal<Local, Bits<8>>,
    s_len: Signal<Local, Bits<32>>,
    s_kl: Signal<Local, Bits<32>>,
    s_wlen: Signal<Local, Bits<32>>,
    s_wkl: Signal<Local, Bits<32>>,
    s_hb: Signal<Local, Bits<32>>,
    s_hw: Signal<Local, Bits<32>>,
    s_db: Signal<Local, Bits<32>>,
    s_dw: Signal<Local, Bits<32>>,
    s_sb: Signal<Local, Bits<32>>,
    s_sw: Signal<Local, Bits<32>>,
    s_src_ok: Signal<Local, Bit>,
    s_dest_lo: Signal<Local, Bits<8>>,
    s_src_lo: Signal<Local, Bits<8>>,
    dest_lo: Signal<Local, Bits<8>>,
    src_lo: Signal<Local, Bits<8>>,
    s_bad: Signal<Local, Bit>,
    // The packet in the decision register.
    first: Signal<Local, Bit>,
    dest: Signal<Local, Bits<8>>,
    src: Signal<Local, Bits<8>>,
    len: Signal<Local, Bits<32>>,
    kl: Signal<Local, Bits<32>>,
    w_len: Signal<Local, Bits<32>>,
    w_kl: Signal<Local, Bits<32>>,
    hd_b: Signal<Local, Bits<32>>,
    hd_w: Signal<Local, Bits<32>>,
    dd_b: Signal<Local, Bits<32>>,
    dd_w: Signal<Local, Bits<32>>,
    hs_b: Signal<Local, Bits<32>>,
    hs_w: Signal<Local, Bits<32>>,
    src_ok: Signal<Local, Bit>,
    recirc: Signal<Local, Bit>,
    code: Signal<Local, Bits<4>>,
    /// The packet's class (trim path, control, data), a data packet over
    /// its queue that may be trimmed, the trim path taken, and the fate as
    /// one flag per code (`fate[c]`; exactly one holds at a first beat).
    c_trim: Signal<Local, Bit>,
    c_prio: Signal<Local, Bit>,
    c_data: Signal<Local, Bit>,
    d_over: Signal<Local, Bit>,
    t_path: Signal<Local, Bit>,
    fate: Vec<Signal<Local, Bit>>,
    trimmed: Signal<Local, Bit>,
    drop_now: Signal<Local, Bit>,
    qport: Signal<Local, Bits<8>>,
    qidx: Signal<Local, Bits<8>>,
    new_user: Signal<Local, Bits<U>>,
    ulen: Signal<Local, Bits<16>>,
    flagv: Signal<Local, Bits<8>>,
    xfer: Signal<Local, Bit>,
    dec: Signal<Local, Bit>,
    load: Signal<Local, Bit>,
    // What the decision of this cycle reserves in the queues of the packet
    // at the input (the variant its fit tests take).
    eq_dd: Signal<Local, Bit>,
    eq_sd: Signal<Local, Bit>,
    eq_ds: Signal<Local, Bit>,
    eq_ss: Signal<Local, Bit>,
    res_h_len: Signal<Local, Bit>,
    res_h_kl: Signal<Local, Bit>,
    res_d_len: Signal<Local, Bit>,
    res_s_len: Signal<Local, Bit>,
    res_s_kl: Signal<Local, Bit>,
    res_dod_kl: Signal<Local, Bit>,
    res_dod_free: Signal<Local, Bit>,
}

/// The bits [`TmAdmit`]'s fit tests compare: `2^w` exceeds a queue's
/// capacity in bytes (`depth * K`; an occupancy never exceeds it, since a
/// packet takes `ceil(bytes / K)` of the `depth` words) and the DoD FIFO's
/// words, plus two packets of the largest length (64 KiB each: a test adds
/// the packet's size and the packet ahead's, whose own test passed). At most 32.
pub fn fit_bits(k: usize, depth_h: usize, depth_d: usize, depth_dod: usize) -> usize {
    let top = (depth_h.max(depth_d) * k).max(depth_dod) + 2 * 65536;
    (usize::BITS - top.leading_zeros()).min(32) as usize
}

impl<const D: usize, const K: usize, const U: usize> TmAdmit<D, K, U> {
    /// Admission for `ports` egress ports whose header and data queues have
    /// `depth_h` and `depth_d` words, with a DoD FIFO that admits up to
    /// `depth_dod` words (its queue index is `2 * ports`).
    pub fn new(ports: usize, depth_h: usize, depth_d: usize, depth_dod: usize) -> Self {
        assert!(K * 8 == D && K.is_power_of_two() && U == 128, "TmAdmit: D = 8K, K a power of two, U = 128 (TmPre's fields)");
        assert!(ports < 128, "TmAdmit: the DoD queue index 2 * ports must fit 8 bits");
        assert!((1..=64).contains(&ports), "TmAdmit: 1..=64 ports");
        assert!(depth_h < 1 << 24 && depth_d < 1 << 24 && depth_dod < 1 << 24);
        // hdl_gen needs literal bit positions; these are meta.rs's.
        assert_eq!(
            (DEST_PORT_LSB, LENGTH_LSB, FLAGS_LSB, PRIO_BIT, TRIM_OK_BIT, L3_LSB, L4_LSB, L3_OFF_LSB, L4_OFF_LSB, IHL_LSB),
            (8, 16, 32, 43, 44, 56, 58, 60, 67, 74)
        );
        let w = fit_bits(K, depth_h, depth_d, depth_dod);
        let mut uc = Bits::<U>::mask();
        for b in (DEST_PORT_LSB..DEST_PORT_LSB + 8).chain(LENGTH_LSB..LENGTH_LSB + 16).chain(T_IN_LO_LSB..U) {
            uc = uc.replace_bit(b, false);
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            occ_bytes: vec_of(2 * ports),
            occ_words: vec_of(2 * ports),
            occ_dod_words: Default::default(),
            enq: Default::default(),
            enq_q: Default::default(),
            enq_bytes: Default::default(),
            enq_words: Default::default(),
            enq_trim: Default::default(),
            enq_len: Default::default(),
            enq_kl: Default::default(),
            enq_w_len: Default::default(),
            enq_w_kl: Default::default(),
            enq_dod: Default::default(),
            limit_h: Default::default(),
            limit_d: Default::default(),
            rts_en: Default::default(),
            meter_en: Default::default(),
            dec_valid: Default::default(),
            dec_code: Default::default(),
            dec_recirc: Default::default(),
            dec_port: Default::default(),
            dec_bytes: Default::default(),
            counters: vec_of(N_COUNTERS),
            clear: vec_of(N_COUNTERS),
            want: Default::default(),
            want_dest: Default::default(),
            want_src: Default::default(),
            hold: Default::default(),
            ports: Constant::new((ports as u64).to_bits()),
            port_id: (0..ports).map(|p| Constant::new((p as u64).to_bits())).collect(),
            sel_mask: Constant::new(((ports.next_power_of_two() - 1) as u64).to_bits()),
            depth_h: Constant::new((depth_h as u64).to_bits()),
            depth_d: Constant::new((depth_d as u64).to_bits()),
            depth_dod: Constant::new((depth_dod as u64).to_bits()),
            dod_q: Constant::new(((2 * ports) as u64).to_bits()),
            recirc_mark: Constant::new(Bits::<U>::default().replace_bit(RECIRC_BIT, true)),
            code_id: (0..N_CODES).map(|c| Constant::new((c as u64).to_bits())).collect(),
            var_id: (0..4).map(|v| Constant::new((v as u64).to_bits())).collect(),
            user_clear: Constant::new(uc),
            pipe: Default::default(),
            out: AxisSkid::eager(),
            le: (0..N_LE).map(|_| SumLe::within(w)).collect(),
            fit_max: Constant::new(((1u64 << w) - 1).to_bits()),
            lim_h: Default::default(),
            lim_d: Default::default(),
            cap: vec_of(N_CAP),
            cap_in: vec_of(N_CAP),
            cap_bound: vec_of(N_CAP),
            cap_take: vec_of(N_CAP),
            v_h: Default::default(),
            v_ht: Default::default(),
            v_d: Default::default(),
            v_hs: Default::default(),
            v_dod: Default::default(),
            r_sel_h: Default::default(),
            r_sel_d: Default::default(),
            r_sel_s: Default::default(),
            r_sel_dod: Default::default(),
            r_bad: Default::default(),
            fit_h: Default::default(),
            fit_d: Default::default(),
            fit_ht: Default::default(),
            fit_hs: Default::default(),
            fit_dod: Default::default(),
            in_pkt: Default::default(),
            drop_cur: Default::default(),
            user_r: Default::default(),
            ev_valid: Default::default(),
            ev_code: Default::default(),
            ev_in: Default::default(),
            count: vec_of(N_COUNTERS),
            s_dest: Default::default(),
            s_src: Default::default(),
            s_len: Default::default(),
            s_kl: Default::default(),
            s_wlen: Default::default(),
            s_wkl: Default::default(),
            s_hb: Default::default(),
            s_hw: Default::default(),
            s_db: Default::default(),
            s_dw: Default::default(),
            s_sb: Default::default(),
            s_sw: Default::default(),
            s_src_ok: Default::default(),
            s_dest_lo: Default::default(),
            s_src_lo: Default::default(),
            dest_lo: Default::default(),
            src_lo: Default::default(),
            s_bad: Default::default(),
            first: Default::default(),
            dest: Default::default(),
            src: Default::default(),
            len: Default::default(),
            kl: Default::default(),
            w_len: Default::default(),
            w_kl: Default::default(),
            hd_b: Default::default(),
            hd_w: Default::default(),
            dd_b: Default::default(),
            dd_w: Default::default(),
            hs_b: Default::default(),
            hs_w: Default::default(),
            src_ok: Default::default(),
            recirc: Default::default(),
            code: Default::default(),
            c_trim: Default::default(),
            c_prio: Default::default(),
            c_data: Default::default(),
            d_over: Default::default(),
            t_path: Default::default(),
            fate: vec_of(N_CODES),
            trimmed: Default::default(),
            drop_now: Default::default(),
            qport: Default::default(),
            qidx: Default::default(),
            new_user: Default::default(),
            ulen: Default::default(),
            flagv: Default::default(),
            xfer: Default::default(),
            dec: Default::default(),
            load: Default::default(),
            eq_dd: Default::default(),
            eq_sd: Default::default(),
            eq_ds: Default::default(),
            eq_ss: Default::default(),
            res_h_len: Default::default(),
            res_h_kl: Default::default(),
            res_d_len: Default::default(),
            res_s_len: Default::default(),
            res_s_kl: Default::default(),
            res_dod_kl: Default::default(),
            res_dod_free: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for TmAdmit<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, v_h, v_ht, v_d, v_hs, v_dod, r_sel_h, r_sel_d, r_sel_s, r_sel_dod, r_bad, in_pkt, drop_cur, user_r, ev_valid,
            ev_code, ev_in
        );
        self.v_h.reset.next = self.reset.val();
        self.v_ht.reset.next = self.reset.val();
        self.v_d.reset.next = self.reset.val();
        self.v_hs.reset.next = self.reset.val();
        self.v_dod.reset.next = self.reset.val();
        self.r_sel_h.reset.next = self.reset.val();
        self.r_sel_d.reset.next = self.reset.val();
        self.r_sel_s.reset.next = self.reset.val();
        self.r_sel_dod.reset.next = self.reset.val();
        self.r_bad.reset.next = self.reset.val();
        self.in_pkt.reset.next = self.reset.val();
        self.drop_cur.reset.next = self.reset.val();
        self.user_r.reset.next = self.reset.val();
        self.ev_valid.reset.next = self.reset.val();
        self.ev_code.reset.next = self.reset.val();
        self.ev_in.reset.next = self.reset.val();
        for c in 0..self.count.len() {
            self.count[c].clock.next = self.clock.val();
            self.count[c].reset.next = self.reset.val();
            self.count[c].d.next = self.count[c].q.val();
            self.counters[c].next = self.count[c].q.val();
        }
        for i in 0..self.cap.len() {
            self.cap[i].clock.next = self.clock.val();
            self.cap[i].reset.next = self.reset.val();
        }
        // Copies of the limit registers, not state: no reset (they follow
        // the register file through a reset).
        dff_setup!(self, clock, lim_h, lim_d);
        self.lim_h.d.next = self.limit_h.val();
        if self.limit_h.val() > self.fit_max.val() {
            self.lim_h.d.next = self.fit_max.val();
        }
        self.lim_d.d.next = self.limit_d.val();
        if self.limit_d.val() > self.fit_max.val() {
            self.lim_d.d.next = self.fit_max.val();
        }
        self.pipe.clock.next = self.clock.val();
        self.pipe.reset.next = self.reset.val();
        self.out.clock.next = self.clock.val();
        self.out.reset.next = self.reset.val();

        // ---- Stage 1: the packet at the input (TmPre's fields in tuser).
        self.pipe.s.tdata.next = self.s.tdata.val();
        self.pipe.s.tkeep.next = self.s.tkeep.val();
        self.pipe.s.tlast.next = self.s.tlast.val();
        self.pipe.s.tuser.next = self.s.tuser.val();
        self.pipe.s.tvalid.next = self.s.tvalid.val();
        self.s_dest.next = self.s.tuser.val().get_bits::<8>(DEST_PORT_LSB);
        self.s_src.next = self.s.tuser.val().get_bits::<8>(SRC_PORT_LSB);
        self.s_len.next = bit_cast::<32, 16>(self.s.tuser.val().get_bits::<16>(LENGTH_LSB));
        self.s_kl.next = bit_cast::<32, 8>(self.s.tuser.val().get_bits::<8>(PRE_KL_LSB));
        self.s_wkl.next = bit_cast::<32, 8>(self.s.tuser.val().get_bits::<8>(PRE_W_KL_LSB));
        self.s_wlen.next = bit_cast::<32, 16>(self.s.tuser.val().get_bits::<16>(PRE_W_LEN_LSB));
        self.s_bad.next = (self.s_dest.val() >= self.ports.val()) | !self.s_len.val().any();
        self.s_hb.next = 0.into();
        self.s_hw.next = 0.into();
        self.s_db.next = 0.into();
        self.s_dw.next = 0.into();
        self.s_sb.next = 0.into();
        self.s_sw.next = 0.into();
        self.s_src_ok.next = self.s_src.val() < self.ports.val();
        self.s_dest_lo.next = self.s_dest.val() & self.sel_mask.val();
        self.s_src_lo.next = self.s_src.val() & self.sel_mask.val();
        for p in 0..self.port_id.len() {
            if self.s_dest_lo.val() == self.port_id[p].val() {
                self.s_hb.next = self.occ_bytes[2 * p].val();
                self.s_hw.next = self.occ_words[2 * p].val();
                self.s_db.next = self.occ_bytes[2 * p + 1].val();
                self.s_dw.next = self.occ_words[2 * p + 1].val();
            }
            if self.s_src_lo.val() == self.port_id[p].val() {
                self.s_sb.next = self.occ_bytes[2 * p].val();
                self.s_sw.next = self.occ_words[2 * p].val();
            }
        }
        // The caps it will offer the packet behind it once it is in the
        // decision register: bound - size, 0 when the size is larger (every
        // size tested against a cap is at least 1, so 0 never fits).
        self.cap_bound[0].next = self.lim_h.q.val();
        self.cap_take[0].next = self.s_len.val();
        self.cap_bound[1].next = self.lim_h.q.val();
        self.cap_take[1].next = self.s_kl.val();
        self.cap_bound[2].next = self.depth_h.val();
        self.cap_take[2].next = self.s_wlen.val();
        self.cap_bound[3].next = self.depth_h.val();
        self.cap_take[3].next = self.s_wkl.val();
        self.cap_bound[4].next = self.lim_d.q.val();
        self.cap_take[4].next = self.s_len.val();
        self.cap_bound[5].next = self.depth_d.val();
        self.cap_take[5].next = self.s_wlen.val();
        self.cap_bound[6].next = self.depth_dod.val();
        self.cap_take[6].next = self.s_wkl.val();
        self.cap_bound[7].next = self.depth_dod.val();
        self.cap_take[7].next = self.s_wlen.val();
        for i in 0..self.cap.len() {
            self.cap_in[i].next = 0.into();
            if self.cap_bound[i].val() >= self.cap_take[i].val() {
                self.cap_in[i].next = self.cap_bound[i].val() - self.cap_take[i].val();
            }
        }
        self.cap_in[7].next = self.depth_dod.val() + self.s_wlen.val();
        // Its fit tests `occupancy + size <= bound`, each one carry chain
        // ([`SumLe`]): bound as configured (nothing reserved ahead of it in
        // this cycle), or the packet ahead's cap (it reserves in that queue).
        // Header queue of dest, whole (0..6) and trimmed (6..12).
        self.le[0].a.next = self.s_hb.val();
        self.le[0].b.next = self.s_len.val();
        self.le[0].c.next = self.lim_h.q.val();
        self.le[1].a.next = self.s_hb.val();
        self.le[1].b.next = self.s_len.val();
        self.le[1].c.next = self.cap[0].q.val();
        self.le[2].a.next = self.s_hb.val();
        self.le[2].b.next = self.s_len.val();
        self.le[2].c.next = self.cap[1].q.val();
        self.le[3].a.next = self.s_hw.val();
        self.le[3].b.next = self.s_wlen.val();
        self.le[3].c.next = self.depth_h.val();
        self.le[4].a.next = self.s_hw.val();
        self.le[4].b.next = self.s_wlen.val();
        self.le[4].c.next = self.cap[2].q.val();
        self.le[5].a.next = self.s_hw.val();
        self.le[5].b.next = self.s_wlen.val();
        self.le[5].c.next = self.cap[3].q.val();
        self.le[6].a.next = self.s_hb.val();
        self.le[6].b.next = self.s_kl.val();
        self.le[6].c.next = self.lim_h.q.val();
        self.le[7].a.next = self.s_hb.val();
        self.le[7].b.next = self.s_kl.val();
        self.le[7].c.next = self.cap[0].q.val();
        self.le[8].a.next = self.s_hb.val();
        self.le[8].b.next = self.s_kl.val();
        self.le[8].c.next = self.cap[1].q.val();
        self.le[9].a.next = self.s_hw.val();
        self.le[9].b.next = self.s_wkl.val();
        self.le[9].c.next = self.depth_h.val();
        self.le[10].a.next = self.s_hw.val();
        self.le[10].b.next = self.s_wkl.val();
        self.le[10].c.next = self.cap[2].q.val();
        self.le[11].a.next = self.s_hw.val();
        self.le[11].b.next = self.s_wkl.val();
        self.le[11].c.next = self.cap[3].q.val();
        // Data queue of dest (12..16).
        self.le[12].a.next = self.s_db.val();
        self.le[12].b.next = self.s_len.val();
        self.le[12].c.next = self.lim_d.q.val();
        self.le[13].a.next = self.s_db.val();
        self.le[13].b.next = self.s_len.val();
        self.le[13].c.next = self.cap[4].q.val();
        self.le[14].a.next = self.s_dw.val();
        self.le[14].b.next = self.s_wlen.val();
        self.le[14].c.next = self.depth_d.val();
        self.le[15].a.next = self.s_dw.val();
        self.le[15].b.next = self.s_wlen.val();
        self.le[15].c.next = self.cap[5].q.val();
        // Header queue of src, trimmed (16..22).
        self.le[16].a.next = self.s_sb.val();
        self.le[16].b.next = self.s_kl.val();
        self.le[16].c.next = self.lim_h.q.val();
        self.le[17].a.next = self.s_sb.val();
        self.le[17].b.next = self.s_kl.val();
        self.le[17].c.next = self.cap[0].q.val();
        self.le[18].a.next = self.s_sb.val();
        self.le[18].b.next = self.s_kl.val();
        self.le[18].c.next = self.cap[1].q.val();
        self.le[19].a.next = self.s_sw.val();
        self.le[19].b.next = self.s_wkl.val();
        self.le[19].c.next = self.depth_h.val();
        self.le[20].a.next = self.s_sw.val();
        self.le[20].b.next = self.s_wkl.val();
        self.le[20].c.next = self.cap[2].q.val();
        self.le[21].a.next = self.s_sw.val();
        self.le[21].b.next = self.s_wkl.val();
        self.le[21].c.next = self.cap[3].q.val();
        // DoD FIFO (22..25).
        self.le[22].a.next = self.occ_dod_words.val();
        self.le[22].b.next = self.s_wkl.val();
        self.le[22].c.next = self.depth_dod.val();
        self.le[23].a.next = self.occ_dod_words.val();
        self.le[23].b.next = self.s_wkl.val();
        self.le[23].c.next = self.cap[6].q.val();
        self.le[24].a.next = self.occ_dod_words.val();
        self.le[24].b.next = self.s_wkl.val();
        self.le[24].c.next = self.cap[7].q.val();

        // ---- Stage 2: the decision register.
        self.first.next = !self.in_pkt.q.val();
        self.dest.next = self.pipe.m.tuser.val().get_bits::<8>(DEST_PORT_LSB);
        self.src.next = self.pipe.m.tuser.val().get_bits::<8>(SRC_PORT_LSB);
        self.len.next = bit_cast::<32, 16>(self.pipe.m.tuser.val().get_bits::<16>(LENGTH_LSB));
        self.kl.next = bit_cast::<32, 8>(self.pipe.m.tuser.val().get_bits::<8>(PRE_KL_LSB));
        self.w_kl.next = bit_cast::<32, 8>(self.pipe.m.tuser.val().get_bits::<8>(PRE_W_KL_LSB));
        self.w_len.next = bit_cast::<32, 16>(self.pipe.m.tuser.val().get_bits::<16>(PRE_W_LEN_LSB));
        self.recirc.next = self.pipe.m.tuser.val().get_bit(RECIRC_BIT);
        // Its fit tests against this cycle's occupancy (25..34), for the
        // next cycle when it stays (nothing of this pipeline reserves then).
        self.hd_b.next = 0.into();
        self.hd_w.next = 0.into();
        self.dd_b.next = 0.into();
        self.dd_w.next = 0.into();
        self.hs_b.next = 0.into();
        self.hs_w.next = 0.into();
        self.src_ok.next = self.src.val() < self.ports.val();
        self.dest_lo.next = self.dest.val() & self.sel_mask.val();
        self.src_lo.next = self.src.val() & self.sel_mask.val();
        for p in 0..self.port_id.len() {
            if self.dest_lo.val() == self.port_id[p].val() {
                self.hd_b.next = self.occ_bytes[2 * p].val();
                self.hd_w.next = self.occ_words[2 * p].val();
                self.dd_b.next = self.occ_bytes[2 * p + 1].val();
                self.dd_w.next = self.occ_words[2 * p + 1].val();
            }
            if self.src_lo.val() == self.port_id[p].val() {
                self.hs_b.next = self.occ_bytes[2 * p].val();
                self.hs_w.next = self.occ_words[2 * p].val();
            }
        }
        self.le[25].a.next = self.hd_b.val();
        self.le[25].b.next = self.len.val();
        self.le[25].c.next = self.lim_h.q.val();
        self.le[26].a.next = self.hd_w.val();
        self.le[26].b.next = self.w_len.val();
        self.le[26].c.next = self.depth_h.val();
        self.le[27].a.next = self.dd_b.val();
        self.le[27].b.next = self.len.val();
        self.le[27].c.next = self.lim_d.q.val();
        self.le[28].a.next = self.dd_w.val();
        self.le[28].b.next = self.w_len.val();
        self.le[28].c.next = self.depth_d.val();
        self.le[29].a.next = self.hd_b.val();
        self.le[29].b.next = self.kl.val();
        self.le[29].c.next = self.lim_h.q.val();
        self.le[30].a.next = self.hd_w.val();
        self.le[30].b.next = self.w_kl.val();
        self.le[30].c.next = self.depth_h.val();
        self.le[31].a.next = self.hs_b.val();
        self.le[31].b.next = self.kl.val();
        self.le[31].c.next = self.lim_h.q.val();
        self.le[32].a.next = self.hs_w.val();
        self.le[32].b.next = self.w_kl.val();
        self.le[32].c.next = self.depth_h.val();
        self.le[33].a.next = self.occ_dod_words.val();
        self.le[33].b.next = self.w_kl.val();
        self.le[33].c.next = self.depth_dod.val();

        // The tests that hold, each a 4:1 selection by a one-hot register.
        self.fit_h.next = false;
        self.fit_ht.next = false;
        self.fit_d.next = false;
        self.fit_hs.next = false;
        self.fit_dod.next = false;
        for k in 0..4 {
            if self.r_sel_h.q.val() == self.var_id[k].val() {
                self.fit_h.next = self.v_h.q.val().get_bit(k);
                self.fit_ht.next = self.v_ht.q.val().get_bit(k);
            }
            if self.r_sel_d.q.val() == self.var_id[k].val() {
                self.fit_d.next = self.v_d.q.val().get_bit(k);
            }
            if self.r_sel_s.q.val() == self.var_id[k].val() {
                self.fit_hs.next = self.v_hs.q.val().get_bit(k);
            }
            if self.r_sel_dod.q.val() == self.var_id[k].val() {
                self.fit_dod.next = self.v_dod.q.val().get_bit(k);
            }
        }

        // The decision (module docs), from the registered tests, as one flag
        // per fate (issue 14: no encoded code between the tests and the
        // queue, tuser and stream logic; the code is encoded beside them).
        // The packet's class: trim path (back from the DoD FIFO, or marked
        // by the meters), control (`prio`), data.
        self.c_trim.next = self.recirc.val()
            | (self.pipe.m.tuser.val().get_bit(METER_TRIM_BIT)
                & self.pipe.m.tuser.val().get_bit(TRIM_OK_BIT)
                & !self.pipe.m.tuser.val().get_bit(PRIO_BIT));
        self.c_prio.next = !self.c_trim.val() & self.pipe.m.tuser.val().get_bit(PRIO_BIT);
        self.c_data.next = !self.c_trim.val() & !self.pipe.m.tuser.val().get_bit(PRIO_BIT);
        // A data packet that does not fit its data queue and may be trimmed:
        // the DoD FIFO in meter mode, else the trim path.
        self.d_over.next = !self.r_bad.q.val() & self.c_data.val() & !self.fit_d.val() & self.pipe.m.tuser.val().get_bit(TRIM_OK_BIT);
        self.t_path.next = (!self.r_bad.q.val() & self.c_trim.val()) | (self.d_over.val() & !self.meter_en.val());
        self.fate[0].next = self.r_bad.q.val();
        self.fate[1].next = !self.r_bad.q.val() & self.c_prio.val() & self.fit_h.val();
        self.fate[2].next = !self.r_bad.q.val() & self.c_data.val() & self.fit_d.val();
        self.fate[3].next = self.t_path.val() & self.fit_ht.val();
        self.fate[4].next = self.t_path.val() & !self.fit_ht.val() & self.rts_en.val() & self.fit_hs.val();
        self.fate[5].next = !self.r_bad.q.val() & self.c_prio.val() & !self.fit_h.val();
        self.fate[6].next = !self.r_bad.q.val() & self.c_data.val() & !self.fit_d.val() & !self.pipe.m.tuser.val().get_bit(TRIM_OK_BIT);
        self.fate[7].next = self.t_path.val() & !self.fit_ht.val() & !(self.rts_en.val() & self.fit_hs.val());
        self.fate[8].next = self.d_over.val() & self.meter_en.val() & self.fit_dod.val();
        self.fate[9].next = self.d_over.val() & self.meter_en.val() & !self.fit_dod.val();
        self.trimmed.next = self.fate[3].val() | self.fate[4].val() | self.fate[8].val();
        self.code.next = 0.into();
        for c in 1..self.code_id.len() {
            if self.fate[c].val() {
                self.code.next = self.code_id[c].val();
            }
        }

        // The admitted packet's queue and tuser.
        self.qport.next = self.dest.val();
        if self.fate[4].val() {
            self.qport.next = self.src.val();
        }
        self.qidx.next = self.qport.val() << 1;
        if self.fate[2].val() {
            self.qidx.next = (self.qport.val() << 1) | 1;
        }
        if self.fate[8].val() {
            self.qidx.next = self.dod_q.val();
        }
        self.ulen.next = self.len.val().get_bits::<16>(0);
        self.flagv.next = 0.into();
        if self.trimmed.val() {
            self.ulen.next = self.kl.val().get_bits::<16>(0);
            self.flagv.next = 1.into();
        }
        if self.fate[4].val() {
            self.flagv.next = 3.into();
        }
        self.new_user.next = (self.pipe.m.tuser.val() & self.user_clear.val())
            | (bit_cast::<U, 8>(self.qport.val()) << 8)
            | (bit_cast::<U, 16>(self.ulen.val()) << 16)
            | (bit_cast::<U, 8>(self.flagv.val()) << 32)
            | (bit_cast::<U, 8>(self.qidx.val()) << 80);
        if self.fate[8].val() {
            self.new_user.next = self.new_user.val() | self.recirc_mark.val();
        }
        // A GRT's `t_in` back to its place (`crate::meta`).
        if self.pipe.m.tuser.val().get_bit(GRT_BIT) {
            self.new_user.next = self.new_user.val()
                | (bit_cast::<U, 10>(self.pipe.m.tuser.val().get_bits::<10>(T_IN_LO_LSB)) << SH_T_IN)
                | (bit_cast::<U, 6>(self.pipe.m.tuser.val().get_bits::<6>(T_IN_HI_LSB)) << SH_T_IN_HI_OUT);
        }
        self.drop_now.next = self.fate[0].val() | self.fate[5].val() | self.fate[6].val() | self.fate[7].val() | self.fate[9].val();

        // Stream: the first beat decides, later beats follow the decision.
        self.out.s.tdata.next = self.pipe.m.tdata.val();
        self.out.s.tkeep.next = self.pipe.m.tkeep.val();
        self.out.s.tlast.next = self.pipe.m.tlast.val();
        self.out.s.tuser.next = self.user_r.q.val();
        if self.first.val() {
            self.out.s.tuser.next = self.new_user.val();
        }
        self.want.next = self.pipe.m.tvalid.val() & self.first.val();
        self.want_dest.next = self.dest.val();
        self.want_src.next = self.src.val();
        if self.first.val() {
            // A first beat leaves when the output slice has room, dropped or
            // not (issue 14: the decision never reaches the decision
            // register's enables; the output slice's `s_tready` is a flip-flop).
            self.pipe.m.tready.next = !self.hold.val() & self.out.s.tready.val();
            self.out.s.tvalid.next = self.pipe.m.tvalid.val() & !self.hold.val() & !self.drop_now.val();
        } else {
            self.pipe.m.tready.next = self.drop_cur.q.val() | self.out.s.tready.val();
            self.out.s.tvalid.next = self.pipe.m.tvalid.val() & !self.drop_cur.q.val();
        }
        self.xfer.next = self.pipe.m.tvalid.val() & self.pipe.m.tready.val();
        self.dec.next = self.xfer.val() & self.first.val();
        self.dec_valid.next = self.dec.val();
        self.dec_code.next = self.code.val();
        self.dec_recirc.next = self.recirc.val();
        self.dec_port.next = self.dest.val();
        self.dec_bytes.next = self.len.val().get_bits::<16>(0);
        self.enq.next = self.dec.val() & !self.drop_now.val();
        self.enq_q.next = self.qidx.val();
        self.enq_bytes.next = self.len.val();
        self.enq_words.next = self.w_len.val();
        if self.trimmed.val() {
            self.enq_bytes.next = self.kl.val();
            self.enq_words.next = self.w_kl.val();
        }
        self.enq_trim.next = self.trimmed.val();
        self.enq_len.next = self.len.val();
        self.enq_kl.next = self.kl.val();
        self.enq_w_len.next = self.w_len.val();
        self.enq_w_kl.next = self.w_kl.val();
        self.enq_dod.next = self.dec.val() & self.fate[8].val();
        // A first beat waiting keeps loading its fate, so the later beats
        // see the one it left with.
        if self.first.val() {
            self.drop_cur.d.next = self.drop_now.val();
            self.user_r.d.next = self.new_user.val();
        }
        if self.xfer.val() {
            self.in_pkt.d.next = !self.pipe.m.tlast.val();
        }
        // Counters count the decision a cycle later.
        self.ev_valid.d.next = self.dec.val();
        self.ev_code.d.next = self.code.val();
        self.ev_in.d.next = !self.recirc.val();
        if self.ev_valid.q.val() {
            for c in 0..self.code_id.len() {
                if self.ev_code.q.val() == self.code_id[c].val() {
                    self.count[c].d.next = self.count[c].q.val() + 1;
                }
            }
            if self.ev_in.q.val() {
                self.count[10].d.next = self.count[10].q.val() + 1;
            }
        }
        for c in 0..self.count.len() {
            if self.clear[c].val() {
                self.count[c].d.next = 0.into();
            }
        }

        // ---- The tests the decision register holds next cycle. The
        // register takes the input's packet (`load`): its tests take the
        // variant of what this cycle's decision reserves in the same queue
        // (the only reservation the occupancy does not show yet); it keeps
        // its packet: the tests of that packet against this cycle's occupancy.
        // The decision register's `s_tready`, computed here rather than read
        // back from it (a read-back is a false loop through this block).
        self.load.next = !self.pipe.m.tvalid.val() | self.pipe.m.tready.val();
        self.s.tready.next = self.load.val();
        self.eq_dd.next = self.dest.val() == self.s_dest.val();
        self.eq_sd.next = self.src.val() == self.s_dest.val();
        self.eq_ds.next = self.dest.val() == self.s_src.val();
        self.eq_ss.next = self.src.val() == self.s_src.val();
        self.res_h_len.next = self.dec.val() & self.fate[1].val() & self.eq_dd.val();
        self.res_h_kl.next = self.dec.val() & ((self.fate[3].val() & self.eq_dd.val()) | (self.fate[4].val() & self.eq_sd.val()));
        self.res_d_len.next = self.dec.val() & self.fate[2].val() & self.eq_dd.val();
        self.res_s_len.next = self.dec.val() & self.fate[1].val() & self.eq_ds.val();
        self.res_s_kl.next = self.dec.val() & ((self.fate[3].val() & self.eq_ds.val()) | (self.fate[4].val() & self.eq_ss.val()));
        self.res_dod_kl.next = self.dec.val() & self.fate[8].val();
        self.res_dod_free.next = self.dec.val() & self.recirc.val();
        // Every variant of every test, and the selection for next cycle.
        self.v_h.d.next = bit_cast::<4, 1>((self.le[0].sum_le.val() & self.le[3].sum_le.val()).into())
            | (bit_cast::<4, 1>((self.le[1].sum_le.val() & self.le[4].sum_le.val()).into()) << 1)
            | (bit_cast::<4, 1>((self.le[2].sum_le.val() & self.le[5].sum_le.val()).into()) << 2)
            | (bit_cast::<4, 1>((self.le[25].sum_le.val() & self.le[26].sum_le.val()).into()) << 3);
        self.v_ht.d.next = bit_cast::<4, 1>((self.le[6].sum_le.val() & self.le[9].sum_le.val()).into())
            | (bit_cast::<4, 1>((self.le[7].sum_le.val() & self.le[10].sum_le.val()).into()) << 1)
            | (bit_cast::<4, 1>((self.le[8].sum_le.val() & self.le[11].sum_le.val()).into()) << 2)
            | (bit_cast::<4, 1>((self.le[29].sum_le.val() & self.le[30].sum_le.val()).into()) << 3);
        self.v_d.d.next = bit_cast::<4, 1>((self.le[12].sum_le.val() & self.le[14].sum_le.val()).into())
            | (bit_cast::<4, 1>((self.le[13].sum_le.val() & self.le[15].sum_le.val()).into()) << 1)
            | (bit_cast::<4, 1>((self.le[27].sum_le.val() & self.le[28].sum_le.val()).into()) << 3);
        self.v_hs.d.next = bit_cast::<4, 1>((self.s_src_ok.val() & self.le[16].sum_le.val() & self.le[19].sum_le.val()).into())
            | (bit_cast::<4, 1>((self.s_src_ok.val() & self.le[17].sum_le.val() & self.le[20].sum_le.val()).into()) << 1)
            | (bit_cast::<4, 1>((self.s_src_ok.val() & self.le[18].sum_le.val() & self.le[21].sum_le.val()).into()) << 2)
            | (bit_cast::<4, 1>((self.src_ok.val() & self.le[31].sum_le.val() & self.le[32].sum_le.val()).into()) << 3);
        self.v_dod.d.next = bit_cast::<4, 1>(self.le[22].sum_le.val().into())
            | (bit_cast::<4, 1>(self.le[23].sum_le.val().into()) << 1)
            | (bit_cast::<4, 1>(self.le[24].sum_le.val().into()) << 2)
            | (bit_cast::<4, 1>(self.le[33].sum_le.val().into()) << 3);
        self.r_sel_h.d.next = 3.into();
        self.r_sel_d.d.next = 3.into();
        self.r_sel_s.d.next = 3.into();
        self.r_sel_dod.d.next = 3.into();
        if self.load.val() {
            for i in 0..self.cap.len() {
                self.cap[i].d.next = self.cap_in[i].val();
            }
            self.r_bad.d.next = self.s_bad.val();
            self.r_sel_h.d.next = 0.into();
            if self.res_h_len.val() {
                self.r_sel_h.d.next = 1.into();
            }
            if self.res_h_kl.val() {
                self.r_sel_h.d.next = 2.into();
            }
            self.r_sel_d.d.next = 0.into();
            if self.res_d_len.val() {
                self.r_sel_d.d.next = 1.into();
            }
            self.r_sel_s.d.next = 0.into();
            if self.res_s_len.val() {
                self.r_sel_s.d.next = 1.into();
            }
            if self.res_s_kl.val() {
                self.r_sel_s.d.next = 2.into();
            }
            self.r_sel_dod.d.next = 0.into();
            if self.res_dod_kl.val() {
                self.r_sel_dod.d.next = 1.into();
            }
            if self.res_dod_free.val() {
                self.r_sel_dod.d.next = 2.into();
            }
        } else {
            for i in 0..self.cap.len() {
                self.cap[i].d.next = self.cap[i].q.val();
            }
            self.r_bad.d.next = self.r_bad.q.val();
        }

        AxisSource::<D, K, U>::link(&mut self.m, &mut self.out.m);
    }
}

/// `ts_tm_pre`: the two register stages in front of [`TmAdmit`]. It computes,
/// for every beat, what admission needs beyond `tuser`'s fields and writes it
/// into `tuser` bits [`PRE_KL_LSB`]..128: the keep length of a trim
/// (`[103:96]`: the trim length of the packet's kind from `trim_len`, at least
/// its headers, at most the window (128 or `tm.trim_window`) and the packet),
/// its words (`[111:104]`) and the packet's words (`[127:112]`, `ceil(bytes /
/// K)`); and it clears `trim_ok` of a packet whose headers end past the
/// window (`docs/trimming.md`, "The window"). So the decision starts
/// from registers (its logic depth, `docs/resources.md`).
///
/// Stage 1 (into an [`AxisPipe`]) computes where the headers end, the trim
/// length of the packet's kind and both in words, in the scratch bits
/// `[103:96]`, `[111:104]`, `[119:112]`, `[127:120]`; stage 2 (into an
/// [`AxisSkid`], registered both ways) compares them with 128 and the length
/// and selects (issue 14: one stage did both at 95-137 MHz on ECP5). Two
/// cycles of latency, full throughput. `trim_len` is sampled in stage 1.
///
/// Ports: `clock`, `reset` (empties both stages); `s_*` in, `m_*` out (wide
/// `tuser`, U = 128); `trim_len` in (`[7:0]` NDP, `[15:8]` IPv4, `[23:16]` IPv6).
#[derive(LogicBlock)]
pub struct TmPre<const D: usize, const K: usize, const U: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: AxisSource<D, K, U>,
    pub trim_len: Signal<In, Bits<24>>,
    stage1: AxisPipe<D, K, U>,
    pre: AxisSkid<D, K, U>,
    pre_clear: Constant<Bits<U>>,
    /// Every bit but `trim_ok`.
    no_trim_ok: Constant<Bits<U>>,
    k_minus_1: Constant<Bits<8>>,
    k_shift: Constant<Bits<8>>,
    k_minus_1_32: Constant<Bits<32>>,
    k_shift_32: Constant<Bits<32>>,
    max_keep: Constant<Bits<8>>,
    w_max_keep: Constant<Bits<8>>,
    hdr_end: Signal<Local, Bits<8>>,
    tlen: Signal<Local, Bits<8>>,
    w_hdr: Signal<Local, Bits<8>>,
    w_tlen: Signal<Local, Bits<8>>,
    len_in: Signal<Local, Bits<16>>,
    h2: Signal<Local, Bits<8>>,
    t2: Signal<Local, Bits<8>>,
    len_lo: Signal<Local, Bits<8>>,
    len_big: Signal<Local, Bit>,
    h_gt_t: Signal<Local, Bit>,
    cap: Signal<Local, Bit>,
    short: Signal<Local, Bit>,
    kl_in: Signal<Local, Bits<8>>,
    w_kl_in: Signal<Local, Bits<8>>,
    w_len_in: Signal<Local, Bits<32>>,
    notrim: Signal<Local, Bit>,
}

impl<const D: usize, const K: usize, const U: usize> Default for TmPre<D, K, U> {
    fn default() -> Self {
        Self::with_window(128)
    }
}

impl<const D: usize, const K: usize, const U: usize> TmPre<D, K, U> {
    /// Keep lengths capped at `window` bytes (`tm.trim_window`, the
    /// trimmer's: [`crate::tm::trimmer::Trimmer::with_window`]) instead of 128.
    pub fn with_window(window: usize) -> Self {
        assert!((1..=128).contains(&window), "TmPre: a window of 1..=128 bytes");
        assert!(K * 8 == D && K.is_power_of_two() && U == 128, "TmPre: D = 8K, K a power of two, U = 128");
        // Header ends and trim lengths (at most 187) plus K - 1 stay below 256.
        assert!(K <= 64, "TmPre: at most 64 bytes per beat");
        let mut pc = Bits::<U>::mask();
        for b in PRE_KL_LSB..U {
            pc = pc.replace_bit(b, false);
        }
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: Default::default(),
            trim_len: Default::default(),
            stage1: Default::default(),
            pre: Default::default(),
            pre_clear: Constant::new(pc),
            no_trim_ok: Constant::new(Bits::<U>::mask().replace_bit(TRIM_OK_BIT, false)),
            k_minus_1: Constant::new(((K - 1) as u64).to_bits()),
            k_shift: Constant::new((K.trailing_zeros() as u64).to_bits()),
            k_minus_1_32: Constant::new(((K - 1) as u64).to_bits()),
            k_shift_32: Constant::new((K.trailing_zeros() as u64).to_bits()),
            max_keep: Constant::new((window as u64).to_bits()),
            w_max_keep: Constant::new((window.div_ceil(K) as u64).to_bits()),
            hdr_end: Default::default(),
            tlen: Default::default(),
            w_hdr: Default::default(),
            w_tlen: Default::default(),
            len_in: Default::default(),
            h2: Default::default(),
            t2: Default::default(),
            len_lo: Default::default(),
            len_big: Default::default(),
            h_gt_t: Default::default(),
            cap: Default::default(),
            short: Default::default(),
            kl_in: Default::default(),
            w_kl_in: Default::default(),
            w_len_in: Default::default(),
            notrim: Default::default(),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize> Logic for TmPre<D, K, U> {
    #[hdl_gen]
    fn update(&mut self) {
        self.stage1.clock.next = self.clock.val();
        self.stage1.reset.next = self.reset.val();
        self.pre.clock.next = self.clock.val();
        self.pre.reset.next = self.reset.val();

        // Stage 1. Headers end after UDP (8 B) or NDP (16 B), else after the
        // IP header (at most 127 + 60 = 187 bytes: 8 bits); trim length by l4
        // NDP (2), else l3 IPv4 (1) / IPv6; both also in words (at most 187).
        self.hdr_end.next = bit_cast::<8, 7>(self.s.tuser.val().get_bits::<7>(L3_OFF_LSB)) + 40;
        if self.s.tuser.val().get_bits::<2>(L3_LSB) == L3_IPV4 {
            self.hdr_end.next = bit_cast::<8, 7>(self.s.tuser.val().get_bits::<7>(L3_OFF_LSB))
                + (bit_cast::<8, 4>(self.s.tuser.val().get_bits::<4>(IHL_LSB)) << 2);
        }
        if self.s.tuser.val().get_bits::<2>(L4_LSB) == L4_UDP {
            self.hdr_end.next = bit_cast::<8, 7>(self.s.tuser.val().get_bits::<7>(L4_OFF_LSB)) + 8;
        }
        if self.s.tuser.val().get_bits::<2>(L4_LSB) == L4_NDP {
            self.hdr_end.next = bit_cast::<8, 7>(self.s.tuser.val().get_bits::<7>(L4_OFF_LSB)) + 16;
        }
        self.tlen.next = self.trim_len.val().get_bits::<8>(TRIM_LEN_IPV6);
        if self.s.tuser.val().get_bits::<2>(L3_LSB) == L3_IPV4 {
            self.tlen.next = self.trim_len.val().get_bits::<8>(TRIM_LEN_IPV4);
        }
        if self.s.tuser.val().get_bits::<2>(L4_LSB) == L4_NDP {
            self.tlen.next = self.trim_len.val().get_bits::<8>(TRIM_LEN_NDP);
        }
        self.w_hdr.next = (self.hdr_end.val() + self.k_minus_1.val()) >> self.k_shift.val();
        self.w_tlen.next = (self.tlen.val() + self.k_minus_1.val()) >> self.k_shift.val();
        self.stage1.s.tdata.next = self.s.tdata.val();
        self.stage1.s.tkeep.next = self.s.tkeep.val();
        self.stage1.s.tlast.next = self.s.tlast.val();
        self.stage1.s.tuser.next = (self.s.tuser.val() & self.pre_clear.val())
            | (bit_cast::<U, 8>(self.hdr_end.val()) << 96)
            | (bit_cast::<U, 8>(self.tlen.val()) << 104)
            | (bit_cast::<U, 8>(self.w_hdr.val()) << 112)
            | (bit_cast::<U, 8>(self.w_tlen.val()) << 120);
        self.stage1.s.tvalid.next = self.s.tvalid.val();
        self.s.tready.next = self.stage1.s.tready.val();

        // Stage 2: kl = min(max(hdr_end, tlen), 128, len), every comparison
        // 8 bits wide (an 8-bit value exceeds `len` only when `len < 256`)
        // and in parallel, then one selection.
        self.len_in.next = self.stage1.m.tuser.val().get_bits::<16>(LENGTH_LSB);
        self.h2.next = self.stage1.m.tuser.val().get_bits::<8>(96);
        self.t2.next = self.stage1.m.tuser.val().get_bits::<8>(104);
        self.len_lo.next = self.len_in.val().get_bits::<8>(0);
        self.len_big.next = self.len_in.val().get_bits::<8>(8).any();
        self.h_gt_t.next = self.h2.val() > self.t2.val();
        self.cap.next = self.t2.val() > self.max_keep.val();
        self.short.next = !self.len_big.val() & (self.t2.val() > self.len_lo.val());
        if self.h_gt_t.val() {
            self.cap.next = self.h2.val() > self.max_keep.val();
            self.short.next = !self.len_big.val() & (self.h2.val() > self.len_lo.val());
        }
        if self.cap.val() {
            self.short.next = !self.len_big.val() & (self.max_keep.val() > self.len_lo.val());
        }
        // 32 bits: a 16-bit length plus K - 1 may carry out.
        self.w_len_in.next = (bit_cast::<32, 16>(self.len_in.val()) + self.k_minus_1_32.val()) >> self.k_shift_32.val();
        // Every candidate fits 8 bits (a short packet is below 256 bytes).
        self.kl_in.next = self.t2.val();
        self.w_kl_in.next = self.stage1.m.tuser.val().get_bits::<8>(120);
        if self.h_gt_t.val() {
            self.kl_in.next = self.h2.val();
            self.w_kl_in.next = self.stage1.m.tuser.val().get_bits::<8>(112);
        }
        if self.cap.val() {
            self.kl_in.next = self.max_keep.val();
            self.w_kl_in.next = self.w_max_keep.val();
        }
        if self.short.val() {
            self.kl_in.next = self.len_lo.val();
            self.w_kl_in.next = self.w_len_in.val().get_bits::<8>(0);
        }
        self.pre.s.tdata.next = self.stage1.m.tdata.val();
        self.pre.s.tkeep.next = self.stage1.m.tkeep.val();
        self.pre.s.tlast.next = self.stage1.m.tlast.val();
        // Headers past the window: `trim_ok` cleared, so admission queues
        // the packet whole or drops it, never cuts inside its headers.
        self.notrim.next = self.h2.val() > self.max_keep.val();
        self.pre.s.tuser.next = (self.stage1.m.tuser.val() & self.pre_clear.val())
            | (bit_cast::<U, 8>(self.kl_in.val()) << 96)
            | (bit_cast::<U, 8>(self.w_kl_in.val()) << 104)
            | (bit_cast::<U, 16>(self.w_len_in.val().get_bits::<16>(0)) << 112);
        if self.notrim.val() {
            self.pre.s.tuser.next = self.pre.s.tuser.val() & self.no_trim_ok.val();
        }
        self.pre.s.tvalid.next = self.stage1.m.tvalid.val();
        self.stage1.m.tready.next = self.pre.s.tready.val();
        AxisSource::<D, K, U>::link(&mut self.m, &mut self.pre.m);
    }
}
