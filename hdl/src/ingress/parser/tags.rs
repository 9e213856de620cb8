//! Parser stage S0: the tag chain (`docs/ingress.md`, "parser").
use super::layout::*;
use crate::prim::widgets::DffR;
use crate::proto::{ethertype, wire16};
use rust_hdl::prelude::*;

/// S0: reads the Ethernet header and its tags (up to two VLAN tags, 802.1Q
/// or 802.1ad, then an optional Protego tag; a third VLAN tag is flagged)
/// from the complete window.
///
/// Two register stages (issue 14): the first registers the window and the
/// tag tests (each EtherType position compared with the VLAN, 802.1ad and
/// Protego types), the second derives the tag count from them and selects
/// the fields. One compare, then one selection, per cycle, where a selection
/// followed by a compare and another selection was one cycle.
///
/// Ports:
/// - `clock`, `reset`: rising-edge clock; synchronous active-high reset (of `v`).
/// - `go` in: the window is complete this cycle; `win` in: the window, bytes
///   past the frame zero; `len` in: the frame length.
/// - `v` out: `go` two cycles later; with it `win_q` (the window) and
///   `l2_rec` ([`L2Info`]).
#[derive(LogicBlock)]
pub struct ParseTags {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub go: Signal<In, Bit>,
    pub win: Signal<In, Bits<WIN_BITS>>,
    pub len: Signal<In, Bits<16>>,
    pub port: Signal<In, Bits<8>>,
    pub v: Signal<Out, Bit>,
    pub win_q: Signal<Out, Bits<WIN_BITS>>,
    pub l2_rec: Signal<Out, L2Info>,
    et_vlan: Constant<Bits<16>>,
    et_qinq: Constant<Bits<16>>,
    et_protego: Constant<Bits<16>>,
    /// The first stage: `go`, the window, the length and the tag tests.
    a_v: DffR<Bit>,
    a_win: DFF<Bits<WIN_BITS>>,
    a_len: DFF<Bits<16>>,
    a_port: DFF<Bits<8>>,
    /// The EtherType after zero, one, two VLAN tags is a VLAN type.
    a_t0: DFF<Bit>,
    a_t1: DFF<Bit>,
    a_t2: DFF<Bit>,
    a_p0: DFF<Bit>,
    a_p1: DFF<Bit>,
    a_p2: DFF<Bit>,
    r_v: DffR<Bit>,
    r_win: DFF<Bits<WIN_BITS>>,
    r_l2: DFF<L2Info>,
    /// The EtherType fields after zero, one and two VLAN tags.
    e0: Signal<Local, Bits<16>>,
    e1: Signal<Local, Bits<16>>,
    e2: Signal<Local, Bits<16>>,
    /// One, two, three VLAN tags.
    v1: Signal<Local, Bit>,
    v2: Signal<Local, Bit>,
    v3: Signal<Local, Bit>,
    /// After the VLAN tags: the EtherType, and if it is Protego's, the tag's
    /// kind and inner EtherType.
    e_tag: Signal<Local, Bits<16>>,
    kind_tag: Signal<Local, Bits<2>>,
    e_prot: Signal<Local, Bits<16>>,
    prot: Signal<Local, Bit>,
    /// The EtherType after zero, one, two VLAN tags is Protego's: compared
    /// in parallel and selected after (issue 14: no compare behind the
    /// selection by the tag count).
    p0: Signal<Local, Bit>,
    p1: Signal<Local, Bit>,
    p2: Signal<Local, Bit>,
}

impl Default for ParseTags {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            go: Default::default(),
            win: Default::default(),
            len: Default::default(),
            port: Default::default(),
            v: Default::default(),
            win_q: Default::default(),
            l2_rec: Default::default(),
            et_vlan: Constant::new(wire16(ethertype::VLAN).to_bits()),
            et_qinq: Constant::new(wire16(ethertype::QINQ).to_bits()),
            et_protego: Constant::new(wire16(ethertype::PROTEGO).to_bits()),
            a_v: Default::default(),
            a_win: Default::default(),
            a_len: Default::default(),
            a_port: Default::default(),
            a_t0: Default::default(),
            a_t1: Default::default(),
            a_t2: Default::default(),
            a_p0: Default::default(),
            a_p1: Default::default(),
            a_p2: Default::default(),
            r_v: Default::default(),
            r_win: Default::default(),
            r_l2: Default::default(),
            e0: Default::default(),
            e1: Default::default(),
            e2: Default::default(),
            v1: Default::default(),
            v2: Default::default(),
            v3: Default::default(),
            e_tag: Default::default(),
            kind_tag: Default::default(),
            e_prot: Default::default(),
            prot: Default::default(),
            p0: Default::default(),
            p1: Default::default(),
            p2: Default::default(),
        }
    }
}

impl Logic for ParseTags {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, a_v, a_win, a_len, a_port, a_t0, a_t1, a_t2, a_p0, a_p1, a_p2, r_v, r_win, r_l2);
        self.a_v.reset.next = self.reset.val();
        self.r_v.reset.next = self.reset.val();
        // Stage 1: the tag tests on the window.
        self.e0.next = self.win.val().get_bits::<16>(ETH_TYPE);
        self.e1.next = self.win.val().get_bits::<16>(ETH_TYPE + TAG_BITS);
        self.e2.next = self.win.val().get_bits::<16>(ETH_TYPE + 2 * TAG_BITS);
        self.p0.next = self.e0.val() == self.et_protego.val();
        self.p1.next = self.e1.val() == self.et_protego.val();
        self.p2.next = self.e2.val() == self.et_protego.val();
        self.a_v.d.next = self.go.val();
        if self.go.val() {
            self.a_win.d.next = self.win.val();
            self.a_len.d.next = self.len.val();
            self.a_port.d.next = self.port.val();
            self.a_t0.d.next = (self.e0.val() == self.et_vlan.val()) | (self.e0.val() == self.et_qinq.val());
            self.a_t1.d.next = (self.e1.val() == self.et_vlan.val()) | (self.e1.val() == self.et_qinq.val());
            self.a_t2.d.next = (self.e2.val() == self.et_vlan.val()) | (self.e2.val() == self.et_qinq.val());
            self.a_p0.d.next = self.p0.val();
            self.a_p1.d.next = self.p1.val();
            self.a_p2.d.next = self.p2.val();
        }
        // Stage 2: the tag count and the fields, from the registered tests.
        self.v1.next = self.a_t0.q.val();
        self.v2.next = self.a_t0.q.val() & self.a_t1.q.val();
        self.v3.next = self.a_t0.q.val() & self.a_t1.q.val() & self.a_t2.q.val();
        if self.v2.val() {
            self.e_tag.next = self.a_win.q.val().get_bits::<16>(ETH_TYPE + 2 * TAG_BITS);
            self.kind_tag.next = self.a_win.q.val().get_bits::<2>(PROTEGO_KIND + 2 * TAG_BITS);
            self.e_prot.next = self.a_win.q.val().get_bits::<16>(PROTEGO_TYPE + 2 * TAG_BITS);
        } else if self.v1.val() {
            self.e_tag.next = self.a_win.q.val().get_bits::<16>(ETH_TYPE + TAG_BITS);
            self.kind_tag.next = self.a_win.q.val().get_bits::<2>(PROTEGO_KIND + TAG_BITS);
            self.e_prot.next = self.a_win.q.val().get_bits::<16>(PROTEGO_TYPE + TAG_BITS);
        } else {
            self.e_tag.next = self.a_win.q.val().get_bits::<16>(ETH_TYPE);
            self.kind_tag.next = self.a_win.q.val().get_bits::<2>(PROTEGO_KIND);
            self.e_prot.next = self.a_win.q.val().get_bits::<16>(PROTEGO_TYPE);
        }
        self.prot.next = self.a_p0.q.val();
        if self.v2.val() {
            self.prot.next = !self.v3.val() & self.a_p2.q.val();
        } else if self.v1.val() {
            self.prot.next = self.a_p1.q.val();
        }
        self.r_v.d.next = self.a_v.q.val();
        if self.a_v.q.val() {
            self.r_win.d.next = self.a_win.q.val();
            self.r_l2.d.next.v3 = self.v3.val();
            self.r_l2.d.next.v6 = false;
            self.r_l2.d.next.prot = self.prot.val();
            self.r_l2.d.next.pkind = 0.into();
            self.r_l2.d.next.ether = self.e_tag.val();
            if self.prot.val() {
                self.r_l2.d.next.pkind = self.kind_tag.val();
                self.r_l2.d.next.ether = self.e_prot.val();
            }
            self.r_l2.d.next.vlans = 0.into();
            self.r_l2.d.next.pcp = 0.into();
            self.r_l2.d.next.vid = 0.into();
            if self.v1.val() {
                self.r_l2.d.next.vlans = 1.into();
                self.r_l2.d.next.pcp = self.a_win.q.val().get_bits::<3>(VLAN_PCP);
                self.r_l2.d.next.vid = (bit_cast::<12, 4>(self.a_win.q.val().get_bits::<4>(VLAN_TCI)) << 8)
                    | bit_cast::<12, 8>(self.a_win.q.val().get_bits::<8>(VLAN_VID_LO));
            }
            if self.v2.val() {
                self.r_l2.d.next.vlans = 2.into();
            }
            self.r_l2.d.next.dmac = (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_DMAC)) << 40)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_DMAC + 8)) << 32)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_DMAC + 16)) << 24)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_DMAC + 24)) << 16)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_DMAC + 32)) << 8)
                | bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_DMAC + 40));
            self.r_l2.d.next.smac = (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_SMAC)) << 40)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_SMAC + 8)) << 32)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_SMAC + 16)) << 24)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_SMAC + 24)) << 16)
                | (bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_SMAC + 32)) << 8)
                | bit_cast::<48, 8>(self.a_win.q.val().get_bits::<8>(ETH_SMAC + 40));
            self.r_l2.d.next.len = self.a_len.q.val();
            self.r_l2.d.next.port = self.a_port.q.val();
        }
        self.v.next = self.r_v.q.val();
        self.win_q.next = self.r_win.q.val();
        self.l2_rec.next = self.r_l2.q.val();
    }
}
