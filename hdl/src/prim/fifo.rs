//! A synchronous FIFO of words in block RAM, first word falling through to
//! a registered output: descriptor and request queues beside a data path
//! (Protego's receiver queues a descriptor per frame in one).
use super::widgets::{DffR, SdpRam};
use rust_hdl::prelude::*;

/// A FIFO of `depth` words (a power of two, at most 32 768) of
/// type `T`: the words in an [`SdpRam`] (block RAM), read ahead into a
/// register after the RAM (its clock-to-out stays inside the cycle) and a
/// queue of three words, the first of which is the output. One word in and
/// one out per cycle; a word written leaves at the earliest four cycles
/// later.
///
/// `s_ready` (registered) says at least `slack` words are free: a writer
/// whose pipeline has up to `slack − 2` words under way after it looks at
/// `s_ready` can write them all. A word written into a full FIFO is lost
/// (a writer that respects `s_ready` never does that).
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock, synchronous active-high reset
///   (empties the FIFO).
/// - `s_valid`, `s_data` in, `s_ready` out: writes.
/// - `m_valid`, `m_data` out (registered), `m_ready` in: the oldest word;
///   it leaves in a cycle with `m_valid` and `m_ready` high.
#[derive(LogicBlock)]
pub struct SyncFifo<T: Synth> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_valid: Signal<In, Bit>,
    pub s_ready: Signal<Out, Bit>,
    pub s_data: Signal<In, T>,
    pub m_valid: Signal<Out, Bit>,
    pub m_ready: Signal<In, Bit>,
    pub m_data: Signal<Out, T>,
    ram: SdpRam<T, 15>,
    /// Words written and read out of the RAM (free-running; the address is
    /// the low bits).
    wp: DffR<Bits<16>>,
    rp: DffR<Bits<16>>,
    /// Words in the RAM, and registered: not empty, full (the read and
    /// write enables come from these, not from a subtraction of the
    /// pointers; their next values from compares of the count and this
    /// cycle's push and read, not from the count's next value).
    cnt: DffR<Bits<16>>,
    ne_r: DffR<Bit>,
    full_r: DffR<Bit>,
    room: DffR<Bit>,
    /// A word read last cycle (at the RAM's output now), the word registered
    /// out of the RAM.
    inflight: DffR<Bit>,
    rv: DffR<Bit>,
    r: DFF<T>,
    /// The queue (valid bits a prefix: `q0` first).
    q0_v: DffR<Bit>,
    q1_v: DffR<Bit>,
    q2_v: DffR<Bit>,
    q0: DFF<T>,
    q1: DFF<T>,
    q2: DFF<T>,
    cnt_n: Signal<Local, Bits<16>>,
    is0: Signal<Local, Bit>,
    is1: Signal<Local, Bit>,
    is_d1: Signal<Local, Bit>,
    is_d: Signal<Local, Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    issue: Signal<Local, Bit>,
    r_move: Signal<Local, Bit>,
    c_mask: Constant<Bits<15>>,
    c_depth: Constant<Bits<16>>,
    /// `depth − slack`: `s_ready` while at most this many words are in the
    /// RAM (a cycle behind, and a word may be written meanwhile).
    c_lim: Constant<Bits<16>>,
}

impl<T: Synth> SyncFifo<T> {
    /// A FIFO of `depth` words whose `s_ready` means `slack` (at least 2)
    /// are free.
    pub fn new(depth: usize, slack: usize) -> Self {
        assert!(
            depth.is_power_of_two() && depth <= 1 << 15 && slack >= 2 && slack < depth,
            "SyncFifo: depth {depth} a power of two up to 32768, slack {slack} in 2..depth"
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_valid: Default::default(),
            s_ready: Default::default(),
            s_data: Default::default(),
            m_valid: Default::default(),
            m_ready: Default::default(),
            m_data: Default::default(),
            ram: SdpRam::new(depth),
            wp: Default::default(),
            rp: Default::default(),
            room: Default::default(),
            inflight: Default::default(),
            rv: Default::default(),
            r: Default::default(),
            q0_v: Default::default(),
            q1_v: Default::default(),
            q2_v: Default::default(),
            q0: Default::default(),
            q1: Default::default(),
            q2: Default::default(),
            cnt: Default::default(),
            ne_r: Default::default(),
            full_r: Default::default(),
            cnt_n: Default::default(),
            is0: Default::default(),
            is1: Default::default(),
            is_d1: Default::default(),
            is_d: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            issue: Default::default(),
            r_move: Default::default(),
            c_mask: Constant::new((depth as u64 - 1).to_bits()),
            c_depth: Constant::new((depth as u64).to_bits()),
            c_lim: Constant::new(((depth - slack) as u64).to_bits()),
        }
    }
}

impl<T: Synth> Logic for SyncFifo<T> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, wp, rp, cnt, ne_r, full_r, room, inflight, rv, r, q0_v, q1_v, q2_v, q0, q1, q2);
        self.wp.reset.next = self.reset.val();
        self.rp.reset.next = self.reset.val();
        self.cnt.reset.next = self.reset.val();
        self.ne_r.reset.next = self.reset.val();
        self.full_r.reset.next = self.reset.val();
        self.room.reset.next = self.reset.val();
        self.inflight.reset.next = self.reset.val();
        self.rv.reset.next = self.reset.val();
        self.q0_v.reset.next = self.reset.val();
        self.q1_v.reset.next = self.reset.val();
        self.q2_v.reset.next = self.reset.val();
        self.ram.clock.next = self.clock.val();
        // ---- writes
        self.push.next = self.s_valid.val() & !self.full_r.q.val();
        self.ram.write_enable.next = self.push.val();
        self.ram.write_address.next = self.wp.q.val().get_bits::<15>(0) & self.c_mask.val();
        self.ram.write_data.next = self.s_data.val();
        if self.push.val() {
            self.wp.d.next = self.wp.q.val() + 1;
        }
        self.room.d.next = self.cnt.q.val() <= self.c_lim.val();
        self.s_ready.next = self.room.q.val();
        // ---- reads: while the words under way (in flight, registered,
        // queued) are at most three, so that four places hold them
        self.pop.next = self.q0_v.q.val() & self.m_ready.val();
        self.issue.next = self.ne_r.q.val()
            & !((self.q2_v.q.val() & (self.inflight.q.val() | self.rv.q.val()))
                | (self.q1_v.q.val() & self.inflight.q.val() & self.rv.q.val()));
        self.ram.read_enable.next = self.issue.val();
        self.ram.read_address.next = self.rp.q.val().get_bits::<15>(0) & self.c_mask.val();
        if self.issue.val() {
            self.rp.d.next = self.rp.q.val() + 1;
        }
        self.inflight.d.next = self.issue.val();
        self.cnt_n.next = self.cnt.q.val();
        if self.push.val() & !self.issue.val() {
            self.cnt_n.next = self.cnt.q.val() + 1;
        }
        if self.issue.val() & !self.push.val() {
            self.cnt_n.next = self.cnt.q.val() - 1;
        }
        self.cnt.d.next = self.cnt_n.val();
        self.is0.next = !self.cnt.q.val().any();
        self.is1.next = self.cnt.q.val() == 1;
        self.is_d1.next = self.cnt.q.val() == self.c_depth.val() - 1;
        self.is_d.next = self.cnt.q.val() == self.c_depth.val();
        self.ne_r.d.next = !((self.is0.val() & !self.push.val()) | (self.is1.val() & self.issue.val() & !self.push.val()));
        self.full_r.d.next = (self.is_d.val() & !self.issue.val()) | (self.is_d1.val() & self.push.val() & !self.issue.val());
        // ---- the queue: a word leaves, the registered word joins at the
        // first free place, the word in flight is registered
        self.r_move.next = self.rv.q.val() & (!self.q2_v.q.val() | self.pop.val());
        if self.pop.val() {
            self.q0_v.d.next = self.q1_v.q.val();
            self.q0.d.next = self.q1.q.val();
            self.q1_v.d.next = self.q2_v.q.val();
            self.q1.d.next = self.q2.q.val();
            self.q2_v.d.next = false;
        }
        if self.r_move.val() {
            self.rv.d.next = false;
            if !self.q0_v.q.val() | (self.pop.val() & !self.q1_v.q.val()) {
                self.q0_v.d.next = true;
                self.q0.d.next = self.r.q.val();
            } else if !self.q1_v.q.val() | (self.pop.val() & !self.q2_v.q.val()) {
                self.q1_v.d.next = true;
                self.q1.d.next = self.r.q.val();
            } else {
                self.q2_v.d.next = true;
                self.q2.d.next = self.r.q.val();
            }
        }
        if self.inflight.q.val() {
            self.rv.d.next = true;
            self.r.d.next = self.ram.read_data.val();
        }
        self.m_valid.next = self.q0_v.q.val();
        self.m_data.next = self.q0.q.val();
    }
}
