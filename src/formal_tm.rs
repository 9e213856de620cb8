//! The formal-only top `ts_tm_core` of the traffic-manager proofs
//! (`trimswitch formal`, jobs `tm_*`; docs/verification.md "Formal").
//!
//! It is [`TrafficManager`] in ideal mode without the meter stage and the
//! recirculation mux (meter mode off: nothing is deflected), without the
//! trimmer and without the register file: [`TmPre`] and [`TmAdmit`] feed the
//! queue demux ([`AxisDemux`]) directly, and the
//! per-port queues and schedulers ([`TmPort`]) and the exact-occupancy
//! bookkeeping ([`TmOcc`]: reserved at `enq`, freed at `deq`) are the blocks
//! `TrafficManager` instantiates, wired as it wires them, so the occupancy
//! the proofs check is the shipped logic. Why without the trimmer: its 128-byte cut buffer and checksum
//! state are large and irrelevant to admission; the proofs assume no packet is
//! trimmable (`tuser.trim_ok` = 0 on every first beat), so admission never
//! chooses a trim fate (codes 3, 4, 7) and the trimmer would pass every packet
//! unchanged. Run-time registers are ports: `limit_h`, `limit_d` (held
//! constant by the properties), `rts_en`, `trim_len`, and the scheduler's
//! `drr_enable`, `strict`, `quantum_h`, `quantum_d` (free).
//!
//! [`TrafficManager`]: trimswitch_hdl::tm::TrafficManager
use rust_hdl::prelude::*;
use trimswitch_hdl::axis::bundle::{AxisSink, AxisSource};
use trimswitch_hdl::axis::demux::AxisDemux;
use trimswitch_hdl::prim::widgets::vec_of;
use trimswitch_hdl::tm::admit::{TmAdmit, TmPre, QUEUE_LSB};
use trimswitch_hdl::tm::occupancy::TmOcc;
use trimswitch_hdl::tm::TmPort;

#[derive(LogicBlock)]
pub struct TmCore<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s: AxisSink<D, K, U>,
    pub m: Vec<AxisSource<D, K, U>>,
    pub limit_h: Signal<In, Bits<32>>,
    pub limit_d: Signal<In, Bits<32>>,
    pub rts_en: Signal<In, Bit>,
    pub trim_len: Signal<In, Bits<24>>,
    pub drr_enable: Signal<In, Bit>,
    pub strict: Signal<In, Bit>,
    pub quantum_h: Signal<In, Bits<32>>,
    pub quantum_d: Signal<In, Bits<32>>,
    pre: TmPre<D, K, U>,
    admit: TmAdmit<D, K, U>,
    demux: AxisDemux<D, K, U>,
    port: Vec<TmPort<D, K, U, M, W>>,
    occ: TmOcc<K>,
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> TmCore<D, K, U, M, W> {
    /// `ports` egress ports, header queues of `depth_h` words, data queues of `depth_d`.
    pub fn new(ports: usize, depth_h: usize, depth_d: usize) -> Self {
        let nq = 2 * ports;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s: Default::default(),
            m: vec_of(ports),
            limit_h: Default::default(),
            limit_d: Default::default(),
            rts_en: Default::default(),
            trim_len: Default::default(),
            drr_enable: Default::default(),
            strict: Default::default(),
            quantum_h: Default::default(),
            quantum_d: Default::default(),
            pre: Default::default(),
            admit: TmAdmit::new(ports, depth_h, depth_d, 4),
            demux: AxisDemux::new(nq, QUEUE_LSB),
            port: (0..ports).map(|_| TmPort::new(depth_h, depth_d)).collect(),
            occ: TmOcc::new(nq),
        }
    }
}

impl<const D: usize, const K: usize, const U: usize, const M: usize, const W: usize> Logic for TmCore<D, K, U, M, W> {
    #[hdl_gen]
    fn update(&mut self) {
        self.admit.clock.next = self.clock.val();
        self.admit.reset.next = self.reset.val();
        self.demux.clock.next = self.clock.val();
        self.demux.reset.next = self.reset.val();

        // Input -> precompute register -> admission -> demux by queue index
        // (TrafficManager has the meter stage and recirculation mux before
        // TmPre, and the trimmer between admission and the demux).
        self.pre.clock.next = self.clock.val();
        self.pre.reset.next = self.reset.val();
        AxisSink::<D, K, U>::link(&mut self.s, &mut self.pre.s);
        self.pre.trim_len.next = self.trim_len.val();
        AxisSource::<D, K, U>::join(&mut self.pre.m, &mut self.admit.s);
        self.admit.rts_en.next = self.rts_en.val();
        self.admit.limit_h.next = self.limit_h.val();
        self.admit.limit_d.next = self.limit_d.val();
        // Ideal mode only: no meters, no DoD path (meter_en low, so admission
        // never deflects and the DoD occupancy stays 0).
        self.admit.meter_en.next = false;
        self.admit.hold.next = false;
        self.admit.occ_dod_words.next = 0.into();
        AxisSource::<D, K, U>::join(&mut self.admit.m, &mut self.demux.s);
        self.demux.clear_drops.next = false;
        for c in 0..self.admit.clear.len() {
            self.admit.clear[c].next = false;
        }

        // Ports, as in TrafficManager.
        for p in 0..self.port.len() {
            self.port[p].clock.next = self.clock.val();
            self.port[p].reset.next = self.reset.val();
            AxisSource::<D, K, U>::join(&mut self.demux.m[2 * p], &mut self.port[p].h);
            AxisSource::<D, K, U>::join(&mut self.demux.m[2 * p + 1], &mut self.port[p].d);
            self.port[p].drr_enable.next = self.drr_enable.val();
            self.port[p].strict.next = self.strict.val();
            self.port[p].quantum_h.next = self.quantum_h.val();
            self.port[p].quantum_d.next = self.quantum_d.val();
            AxisSource::<D, K, U>::link(&mut self.m[p], &mut self.port[p].m);
            self.occ.deq[2 * p].next = self.port[p].deq_h.val();
            self.occ.deq[2 * p + 1].next = self.port[p].deq_d.val();
            self.occ.deq_bytes[2 * p].next = self.port[p].deq_h_bytes.val();
            self.occ.deq_bytes[2 * p + 1].next = self.port[p].deq_d_bytes.val();
        }
        // Exact occupancy: the traffic manager's own block.
        self.occ.clock.next = self.clock.val();
        self.occ.reset.next = self.reset.val();
        self.occ.enq.next = self.admit.enq.val();
        self.occ.enq_q.next = self.admit.enq_q.val();
        self.occ.enq_trim.next = self.admit.enq_trim.val();
        self.occ.enq_len.next = self.admit.enq_len.val();
        self.occ.enq_kl.next = self.admit.enq_kl.val();
        self.occ.enq_w_len.next = self.admit.enq_w_len.val();
        self.occ.enq_w_kl.next = self.admit.enq_w_kl.val();
        for q in 0..self.admit.occ_bytes.len() {
            self.admit.occ_bytes[q].next = self.occ.occ_bytes[q].val();
            self.admit.occ_words[q].next = self.occ.occ_words[q].val();
        }
    }
}
