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
/// - `enq`, `enq_q`, `enq_bytes`, `enq_words` in: admission reserved
///   `enq_bytes` bytes and `enq_words` words in queue `enq_q` this cycle
///   (`TmAdmit`'s outputs of the same names).
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
    pub enq_bytes: Signal<In, Bits<32>>,
    pub enq_words: Signal<In, Bits<32>>,
    pub deq: Vec<Signal<In, Bit>>,
    pub deq_bytes: Vec<Signal<In, Bits<32>>>,
    pub occ_bytes: Vec<Signal<Out, Bits<32>>>,
    pub occ_words: Vec<Signal<Out, Bits<32>>>,
    occ_b: Vec<DffR<Bits<32>>>,
    occ_w: Vec<DffR<Bits<32>>>,
    /// Each count's next value with and without this cycle's enqueue, each
    /// one carry chain (`occ + enq - deq` and `occ - deq`, the dequeue gated
    /// to 0 when absent), the enqueue's decision selecting after them. A
    /// packet's words, `ceil(bytes / K)`, are `bytes >> log2 K` and a borrow
    /// when the low bits are not 0, so no rounding add in front (issue 14:
    /// `ts_tm`'s path on the Versa was the port's output `tuser` -> the
    /// rounding chain -> the subtraction's chain).
    nb: Vec<AddSub<32>>,
    nw: Vec<AddSubBorrow<32>>,
    nb0: Vec<AddSub<32>>,
    nw0: Vec<AddSubBorrow<32>>,
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
            enq_bytes: Default::default(),
            enq_words: Default::default(),
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
            self.nb[q].b.next = self.enq_bytes.val();
            self.nw[q].b.next = self.enq_words.val();
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
            self.occ_b[q].d.next = self.nb0[q].add_sub.val();
            self.occ_w[q].d.next = self.nw0[q].add_sub.val();
            if self.enq_here[q].val() {
                self.occ_b[q].d.next = self.nb[q].add_sub.val();
                self.occ_w[q].d.next = self.nw[q].add_sub.val();
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
    }

    impl Bench {
        fn new(nq: usize) -> Self {
            let mut occ = TmOcc::<8>::new(nq);
            occ.connect_all();
            Self { occ }
        }

        fn edge(&mut self, reset: bool, enq: Option<(u8, u32, u32)>, deq: &[(usize, u32)]) -> Vec<(u64, u64)> {
            let o = &mut self.occ;
            o.reset.next = reset;
            o.enq.next = enq.is_some();
            let (q, b, w) = enq.unwrap_or((0, 0, 0));
            o.enq_q.next = (q as u64).to_bits();
            o.enq_bytes.next = (b as u64).to_bits();
            o.enq_words.next = (w as u64).to_bits();
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
        let mut b = Bench::new(3);
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
