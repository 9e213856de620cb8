//! `TmOcc`: the traffic manager's exact queue occupancy (`docs/trimming.md`,
//! "Ideal mode"), one byte and one word count per queue, reserved when
//! admission enqueues a packet and freed when the packet's last beat leaves.
//!
//! [`crate::tm::TrafficManager`] and the formal top `ts_tm_core` (`trimswitch
//! formal`, jobs `tm_*`) both instantiate this block, so the proofs of exact
//! occupancy check the logic that ships.
use crate::prim::widgets::{vec_of, AddSub, AddSubBorrow, DffR};
use rust_hdl::prelude::*;

/// Exact byte and word occupancy of `nq` queues, `K` bytes per word.
///
/// Ports:
/// - `clock`, `reset` in: rising edge; synchronous reset clears every count.
/// - `enq`, `enq_q`, `enq_trim`, `enq_len`, `enq_kl`, `enq_w_len`,
///   `enq_w_kl` in: admission reserved in queue `enq_q` this cycle
///   `enq_kl` bytes and `enq_w_kl` words when `enq_trim`, else `enq_len`
///   bytes and `enq_w_len` words (`TmAdmit`'s outputs of the same names).
/// - `deq[q]`, `deq_bytes[q]` in: a packet of `deq_bytes[q]` bytes left queue
///   `q` this cycle (its last beat); it frees `ceil(deq_bytes / K)` words.
/// - `occ_bytes[q]`, `occ_words[q]` out: the counts, registered (an enqueue
///   or dequeue shows the cycle after). An enqueue and a dequeue of the same
///   queue in one cycle are both applied.
#[derive(LogicBlock)]
pub struct TmOcc<const K: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub enq: Signal<In, Bit>,
    pub enq_q: Signal<In, Bits<8>>,
    pub enq_trim: Signal<In, Bit>,
    pub enq_len: Signal<In, Bits<32>>,
    pub enq_kl: Signal<In, Bits<32>>,
    pub enq_w_len: Signal<In, Bits<32>>,
    pub enq_w_kl: Signal<In, Bits<32>>,
    pub deq: Vec<Signal<In, Bit>>,
    pub deq_bytes: Vec<Signal<In, Bits<32>>>,
    pub occ_bytes: Vec<Signal<Out, Bits<32>>>,
    pub occ_words: Vec<Signal<Out, Bits<32>>>,
    occ_b: Vec<DffR<Bits<32>>>,
    occ_w: Vec<DffR<Bits<32>>>,
    /// Each count's next value with this cycle's enqueue whole (`nb`,
    /// `nw`), trimmed (`nbk`, `nwk`) and without it (`nb0`, `nw0`), each one
    /// carry chain (`occ + enq - deq` and `occ - deq`, the dequeue gated to
    /// 0 when absent), the enqueue's decision (queue and trim) selecting
    /// after them (issue 14: the trim decision chose the amount in front
    /// of the chain, `ts_tm`'s path on the Versa in session 56). A
    /// packet's words, `ceil(bytes / K)`, are `bytes >> log2 K` and a borrow
    /// when the low bits are not 0, so no rounding add in front (issue 14:
    /// `ts_tm`'s path on the Versa was the port's output `tuser` -> the
    /// rounding chain -> the subtraction's chain).
    nb: Vec<AddSub<32>>,
    nw: Vec<AddSubBorrow<32>>,
    nb0: Vec<AddSub<32>>,
    nw0: Vec<AddSubBorrow<32>>,
    nbk: Vec<AddSub<32>>,
    nwk: Vec<AddSubBorrow<32>>,
    q_id: Vec<Constant<Bits<8>>>,
    k_low: Constant<Bits<32>>,
    k_shift: Constant<Bits<32>>,
    deq_w: Vec<Signal<Local, Bits<32>>>,
    enq_here: Vec<Signal<Local, Bit>>,
}

impl<const K: usize> TmOcc<K> {
    /// Counts for `nq` queues (queue indices below 256).
    pub fn new(nq: usize) -> Self {
        assert!(K.is_power_of_two(), "TmOcc: K = {K} bytes per word must be a power of two");
        assert!((1..=256).contains(&nq), "TmOcc: {nq} queues, expected 1..=256");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            enq: Default::default(),
            enq_q: Default::default(),
            enq_trim: Default::default(),
            enq_len: Default::default(),
            enq_kl: Default::default(),
            enq_w_len: Default::default(),
            enq_w_kl: Default::default(),
            deq: vec_of(nq),
            deq_bytes: vec_of(nq),
            occ_bytes: vec_of(nq),
            occ_words: vec_of(nq),
            occ_b: vec_of(nq),
            occ_w: vec_of(nq),
            nb: vec_of(nq),
            nw: vec_of(nq),
            nb0: vec_of(nq),
            nw0: vec_of(nq),
            nbk: vec_of(nq),
            nwk: vec_of(nq),
            q_id: (0..nq).map(|q| Constant::new((q as u64).to_bits())).collect(),
            k_low: Constant::new(((K - 1) as u64).to_bits()),
            k_shift: Constant::new((K.trailing_zeros() as u64).to_bits()),
            deq_w: vec_of(nq),
            enq_here: vec_of(nq),
        }
    }
}

impl<const K: usize> Logic for TmOcc<K> {
    #[hdl_gen]
    fn update(&mut self) {
        for q in 0..self.occ_b.len() {
            self.occ_b[q].clock.next = self.clock.val();
            self.occ_b[q].reset.next = self.reset.val();
            self.occ_w[q].clock.next = self.clock.val();
            self.occ_w[q].reset.next = self.reset.val();
            self.occ_bytes[q].next = self.occ_b[q].q.val();
            self.occ_words[q].next = self.occ_w[q].q.val();
            // The words a dequeue frees, less the rounding (the borrow below).
            self.deq_w[q].next = self.deq_bytes[q].val() >> self.k_shift.val();
            self.enq_here[q].next = self.enq.val() & (self.enq_q.val() == self.q_id[q].val());
        }
        for q in 0..self.occ_b.len() {
            self.nb[q].a.next = self.occ_b[q].q.val();
            self.nw[q].a.next = self.occ_w[q].q.val();
            self.nb0[q].a.next = self.occ_b[q].q.val();
            self.nw0[q].a.next = self.occ_w[q].q.val();
            self.nbk[q].a.next = self.occ_b[q].q.val();
            self.nwk[q].a.next = self.occ_w[q].q.val();
            self.nb[q].b.next = self.enq_len.val();
            self.nw[q].b.next = self.enq_w_len.val();
            self.nbk[q].b.next = self.enq_kl.val();
            self.nwk[q].b.next = self.enq_w_kl.val();
            self.nb0[q].b.next = 0.into();
            self.nw0[q].b.next = 0.into();
            self.nb[q].c.next = 0.into();
            self.nw[q].c.next = 0.into();
            self.nw[q].borrow.next = false;
            if self.deq[q].val() {
                self.nb[q].c.next = self.deq_bytes[q].val();
                self.nw[q].c.next = self.deq_w[q].val();
                self.nw[q].borrow.next = (self.deq_bytes[q].val() & self.k_low.val()).any();
            }
            self.nb0[q].c.next = self.nb[q].c.val();
            self.nw0[q].c.next = self.nw[q].c.val();
            self.nw0[q].borrow.next = self.nw[q].borrow.val();
            self.nbk[q].c.next = self.nb[q].c.val();
            self.nwk[q].c.next = self.nw[q].c.val();
            self.nwk[q].borrow.next = self.nw[q].borrow.val();
            self.occ_b[q].d.next = self.nb0[q].add_sub.val();
            self.occ_w[q].d.next = self.nw0[q].add_sub.val();
            if self.enq_here[q].val() {
                if self.enq_trim.val() {
                    self.occ_b[q].d.next = self.nbk[q].add_sub.val();
                    self.occ_w[q].d.next = self.nwk[q].add_sub.val();
                } else {
                    self.occ_b[q].d.next = self.nb[q].add_sub.val();
                    self.occ_w[q].d.next = self.nw[q].add_sub.val();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Steps the block one clock edge in rust-hdl's simulator, with the given
    /// inputs, and returns (bytes, words) of every queue after the edge.
    struct Bench {
        occ: TmOcc<8>,
        /// The enqueues are of trimmed packets (`enq_trim`).
        trim: bool,
    }

    impl Bench {
        fn new(nq: usize) -> Self {
            let mut occ = TmOcc::<8>::new(nq);
            occ.connect_all();
            Self { occ, trim: false }
        }

        fn edge(&mut self, reset: bool, enq: Option<(u8, u32, u32)>, deq: &[(usize, u32)]) -> Vec<(u64, u64)> {
            let o = &mut self.occ;
            o.reset.next = reset;
            o.enq.next = enq.is_some();
            let (q, b, w) = enq.unwrap_or((0, 0, 0));
            o.enq_q.next = (q as u64).to_bits();
            // A whole packet of (b, w); the trimmed amounts, which it must
            // not take, differ.
            o.enq_trim.next = self.trim;
            let (whole, trimmed) = if self.trim { ((b + 1000, w + 100), (b, w)) } else { ((b, w), (b + 1000, w + 100)) };
            o.enq_len.next = (whole.0 as u64).to_bits();
            o.enq_w_len.next = (whole.1 as u64).to_bits();
            o.enq_kl.next = (trimmed.0 as u64).to_bits();
            o.enq_w_kl.next = (trimmed.1 as u64).to_bits();
            for i in 0..o.deq.len() {
                o.deq[i].next = false;
                o.deq_bytes[i].next = 0.into();
            }
            for (i, b) in deq {
                o.deq[*i].next = true;
                o.deq_bytes[*i].next = (*b as u64).to_bits();
            }
            // Settle the combinational logic, a rising edge, then the low half.
            for clk in [false, true, false] {
                o.clock.next = Clock::from(clk);
                for _ in 0..8 {
                    o.update_all();
                    if !o.has_changed() {
                        break;
                    }
                }
            }
            (0..o.occ_bytes.len()).map(|i| (o.occ_bytes[i].val().index() as u64, o.occ_words[i].val().index() as u64)).collect()
        }
    }

    #[test]
    fn reserves_frees_and_resets() {
        reserves_frees_and_resets_in(false);
    }

    /// The same enqueues as trimmed packets: the counts take the trimmed
    /// amounts (`enq_kl`, `enq_w_kl`), not the whole ones.
    #[test]
    fn trimmed_packets_reserve_their_kept_length() {
        reserves_frees_and_resets_in(true);
    }

    fn reserves_frees_and_resets_in(trim: bool) {
        let mut b = Bench::new(3);
        b.trim = trim;
        b.edge(true, None, &[]);
        assert_eq!(b.edge(false, Some((1, 100, 13)), &[]), vec![(0, 0), (100, 13), (0, 0)]);
        assert_eq!(b.edge(false, Some((1, 64, 8)), &[]), vec![(0, 0), (164, 21), (0, 0)]);
        // Enqueue and dequeue of the same queue in one cycle: both apply;
        // 100 bytes free ceil(100 / 8) = 13 words.
        assert_eq!(b.edge(false, Some((1, 9, 2)), &[(1, 100)]), vec![(0, 0), (73, 10), (0, 0)]);
        // Enqueue to one queue while another frees.
        assert_eq!(b.edge(false, Some((2, 8, 1)), &[(1, 64)]), vec![(0, 0), (9, 2), (8, 1)]);
        // A queue index beyond the queues reserves nothing.
        assert_eq!(b.edge(false, Some((7, 500, 63)), &[]), vec![(0, 0), (9, 2), (8, 1)]);
        assert_eq!(b.edge(true, Some((0, 5, 1)), &[]), vec![(0, 0), (0, 0), (0, 0)]);
    }
}
