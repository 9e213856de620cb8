// Properties of the traffic manager's queue admission, for SymbiYosys, on the
// formal top ts_tm_core (src/formal_tm.rs: TmPre -> TmAdmit -> queue demux -> per port
// a header and a data queue (cut-through ts_pkt_fifo) -> scheduler, with the
// exact-occupancy block TmOcc (occ) that TrafficManager instantiates; the trimmer is
// not in this top). `trimswitch formal` includes this file at the end of
// module ts_tm_core, so it sees the ports and the top's internal wires by name
// (admit__enq, demux__m_tvalid_<q>, occ__occ_words_<q>, ...). Written for 2 ports
// (4 queues); every name declared here starts with `f_`. The includer defines
//   F_DW, F_KW, F_UW         tdata / tkeep / tuser widths (tuser 128 bits)
//   F_PORTS, F_NQ            ports (2) and queues (4; queue q = 2*port + data)
//   F_DEPTH_H, F_DEPTH_D     header / data queue depth in words (RAM beats)
//   F_MAXB                   longest input packet in beats (assumption)
//   F_MAX_LIMIT              largest byte limit tried (the limits are free
//                            constants 0..F_MAX_LIMIT)
//
// What is checked (after the reset in cycle 0):
//  A. admission is the spec (docs/trimming.md "Queues and admission"): at a
//     packet's first beat, with dest_port < ports, it is enqueued (whole) into
//     queue 2*dest + !prio iff occ_b + L <= limit and occ_w + ceil(L/K) <= depth
//     of that queue, reserving exactly L bytes and ceil(L/K) words; nothing is
//     enqueued at any other time;
//  B. occupancy is exact: occ_b[q] / occ_w[q] equal the bytes / words of the
//     packets admitted into q whose last beat has not left port q/2, counted
//     independently here (bytes from the output tkeep, words from the output
//     beats); and never exceed the byte limit / the depth (no overflow);
//  C. the demux never offers queue q a beat it refuses (no internal
//     back-pressure from a full queue; tm_fifo_inv.svh checks the same and
//     used <= depth inside each FIFO);
//  D. every packet leaving port p belongs to a queue of p, keeps one tuser,
//     has packed tkeep and exactly tuser.length bytes; the n-th packet leaving
//     from queue q is the n-th packet admitted into q: a tracked symbolic
//     packet (any one the solver picks) leaves at its turn with its admitted
//     tuser and, at its tracked beat (any index), its data, keep and last.
//     So no packet is lost, duplicated, invented or reordered within a queue.
//  E. AXI4-Stream at the outputs: a stalled beat stays valid and unchanged.

localparam F_BW = 8;
localparam [F_KW-1:0] F_ALL_KEEP = {F_KW{1'b1}};
localparam F_KSH = $clog2(F_KW);

function automatic [F_BW-1:0] f_popcount(input [F_KW-1:0] k);
    integer i;
    begin
        f_popcount = 0;
        for (i = 0; i < F_KW; i = i + 1)
            f_popcount = f_popcount + k[i];
    end
endfunction
function automatic [F_DW-1:0] f_bytemask(input [F_KW-1:0] k);
    integer i;
    begin
        for (i = 0; i < F_DW; i = i + 1) f_bytemask[i] = k[i / 8];
    end
endfunction
function automatic f_packed(input [F_KW-1:0] k, input last);
    f_packed = last ? (k != 0 && (k & (k + 1'b1)) == 0) : (k == F_ALL_KEEP);
endfunction

// ---------------------------------------------------------------- reset, configuration
reg f_past_valid;
initial f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
always @(*) if (!f_past_valid) assume(reset);
always @(*) if (f_past_valid) assume(!reset);
wire f_run = f_past_valid && !reset;

// The byte limits and the scheduler settings are registers software sets
// before traffic: any constants (limits up to F_MAX_LIMIT, quanta below 2^30
// as AxisArbMux requires; strict, round robin or DRR).
(* anyconst *) reg [31:0] f_limit_h, f_limit_d, f_quantum_h, f_quantum_d;
(* anyconst *) reg f_drr, f_strict;
always @(*) begin
    assume(f_limit_h <= F_MAX_LIMIT && f_limit_d <= F_MAX_LIMIT);
    assume(limit_h == f_limit_h && limit_d == f_limit_d);
    assume(f_quantum_h < 32'h4000_0000 && f_quantum_d < 32'h4000_0000);
    assume(quantum_h == f_quantum_h && quantum_d == f_quantum_d);
    assume(drr_enable == f_drr && strict == f_strict);
end

// ---------------------------------------------------------------- queues seen from the top
wire [F_NQ-1:0] f_dv = {demux__m_tvalid_3, demux__m_tvalid_2, demux__m_tvalid_1, demux__m_tvalid_0};
wire [F_NQ-1:0] f_dr = {demux__m_tready_3, demux__m_tready_2, demux__m_tready_1, demux__m_tready_0};
wire [32*F_NQ-1:0] f_occ_b = {occ__occ_bytes_3, occ__occ_bytes_2, occ__occ_bytes_1, occ__occ_bytes_0};
wire [32*F_NQ-1:0] f_occ_w = {occ__occ_words_3, occ__occ_words_2, occ__occ_words_1, occ__occ_words_0};
function automatic [31:0] f_depth(input integer q);
    f_depth = q[0] ? F_DEPTH_D : F_DEPTH_H;
endfunction
wire [F_PORTS-1:0] f_mv = {m_tvalid_1, m_tvalid_0};
wire [F_PORTS-1:0] f_mr = {m_tready_1, m_tready_0};
wire [F_PORTS-1:0] f_ml = {m_tlast_1, m_tlast_0};
wire [F_KW*F_PORTS-1:0] f_mk = {m_tkeep_1, m_tkeep_0};
wire [F_DW*F_PORTS-1:0] f_md = {m_tdata_1, m_tdata_0};
wire [F_UW*F_PORTS-1:0] f_mu = {m_tuser_1, m_tuser_0};

// ---------------------------------------------------------------- input assumptions
wire f_in = s_tvalid && s_tready;
reg [F_BW-1:0] f_in_beat;      // beats of the current input packet accepted so far
reg [15:0]     f_in_bytes;     // its bytes so far
reg [15:0]     f_in_len;       // its tuser.length
wire [F_BW-1:0] f_nb_in = s_tlast ? f_popcount(s_tkeep) : F_KW;
wire [15:0] f_len_now = (f_in_beat == 0) ? s_tuser[31:16] : f_in_len;
always @(*) if (f_in) begin
    assume(f_packed(s_tkeep, s_tlast));                      // packed tkeep
    if (f_in_beat == F_MAXB - 1) assume(s_tlast);             // at most F_MAXB beats
    // tuser.length is the packet's byte count (the ingress guarantees it)
    if (s_tlast) assume(f_in_bytes + f_nb_in == f_len_now);
    else assume(f_in_bytes + F_KW < f_len_now);
end
// Nothing is trimmable (trim_ok, tuser bit 44, low): admission never chooses a
// trim fate, which is why the trimmer can be left out of this top.
always @(*) if (s_tvalid) assume(!s_tuser[44]);
// Meter mode is off in this top: no packet arrives marked by the meters
// (tuser bit 88) or coming back from the DoD FIFO (bit 89); bits 90..127 are
// the traffic manager's own (TmPre overwrites 96..127).
always @(*) if (s_tvalid) assume(s_tuser[F_UW-1:88] == 0);
reg f_s_stalled;
reg [F_DW+F_KW+F_UW:0] f_s_held;
always @(posedge clock) begin
    f_s_stalled <= !reset && s_tvalid && !s_tready;
    f_s_held <= {s_tdata, s_tkeep, s_tlast, s_tuser};
end
always @(*) if (f_run && f_s_stalled) begin
    assume(s_tvalid);
    assume({s_tdata, s_tkeep, s_tlast, s_tuser} == f_s_held);
end
always @(posedge clock)
    if (reset) begin
        f_in_beat <= 0;
        f_in_bytes <= 0;
    end else if (f_in) begin
        if (f_in_beat == 0) f_in_len <= s_tuser[31:16];
        f_in_beat <= s_tlast ? 0 : f_in_beat + 1'b1;
        f_in_bytes <= s_tlast ? 0 : f_in_bytes + f_nb_in;
    end
always @(*) if (f_run) assert(f_in_beat < F_MAXB && f_in_bytes == f_in_beat * F_KW);

// ---------------------------------------------------------------- admission's input
// Admission takes packets out of TmPre's register (TmPre only adds its fields
// at tuser[127:96]) into its decision register and decides a packet there, a
// cycle or more after its first beat came in (dec_valid); A and D watch that.
wire f_a = admit__s_tvalid && admit__s_tready;
reg [F_BW-1:0] f_a_beat;       // beats of the current packet admission has taken
always @(posedge clock)
    if (reset) f_a_beat <= 0;
    else if (f_a) f_a_beat <= admit__s_tlast ? 0 : f_a_beat + 1'b1;
// The packet taken in whose decision is still due: the decision register
// holds one beat, so there is at most one.
reg            f_pend_v;
reg [F_UW-1:0] f_pend;
always @(posedge clock)
    if (reset) f_pend_v <= 1'b0;
    else if (f_a && f_a_beat == 0) begin
        f_pend_v <= 1'b1;
        f_pend <= admit__s_tuser;
    end else if (admit__dec_valid) f_pend_v <= 1'b0;

// ---------------------------------------------------------------- A. admission is the spec
// The occupancy a decision sees: every earlier decision, and the departures
// of the cycles before the last (its tests are registered a cycle ahead), so
// the bytes and words the last cycle's departures freed count as still held.
reg [32*F_NQ-1:0] f_fb;      // bytes that left queue q last cycle
reg [32*F_NQ-1:0] f_fw;      // words that left queue q last cycle
wire        f_first = admit__dec_valid;
wire [7:0]  f_dest = f_pend[15:8];
wire [15:0] f_len = f_pend[31:16];
wire        f_data = !f_pend[43];                             // not prio: data queue
wire [7:0]  f_qi = {f_dest[6:0], f_data};
wire [31:0] f_words = ({16'd0, f_len} + F_KW - 1) >> F_KSH;
wire [31:0] f_ob_q = f_occ_b[f_qi[1:0] * 32 +: 32] + f_fb[f_qi[1:0] * 32 +: 32];
wire [31:0] f_ow_q = f_occ_w[f_qi[1:0] * 32 +: 32] + f_fw[f_qi[1:0] * 32 +: 32];
wire f_fits = f_ob_q + f_len <= (f_data ? f_limit_d : f_limit_h) && f_ow_q + f_words <= (f_data ? F_DEPTH_D : F_DEPTH_H);
always @(*) if (f_run) begin
    if (admit__enq) assert(f_first);
    if (f_first) begin
        assert(f_pend_v);
        if (f_dest < F_PORTS) assert(admit__enq == f_fits);
        else assert(!admit__enq);
        if (admit__enq) assert(admit__enq_q == f_qi && admit__enq_bytes == f_len && admit__enq_words == f_words);
    end
end

// ---------------------------------------------------------------- per-queue ghost state
reg [8*F_NQ-1:0]  f_adm;     // packets admitted into q (mod 256)
reg [8*F_NQ-1:0]  f_dep;     // packets whose last beat left from q
reg [32*F_NQ-1:0] f_res_b;   // bytes of admitted packets not yet left
reg [32*F_NQ-1:0] f_res_w;   // words of admitted packets not yet left

// ---------------------------------------------------------------- output side, per port
reg [F_BW*F_PORTS-1:0] f_ob;      // beats of the current output packet sent so far
reg [16*F_PORTS-1:0]   f_obytes;  // its bytes so far
reg [F_UW*F_PORTS-1:0] f_ou;      // its tuser
reg [F_PORTS-1:0]      f_m_stalled;
reg [(F_DW+F_KW+1+F_UW)*F_PORTS-1:0] f_m_held;
wire [F_PORTS-1:0] f_out = f_mv & f_mr;
genvar f_p;
generate for (f_p = 0; f_p < F_PORTS; f_p = f_p + 1) begin : f_port
    wire [F_UW-1:0] u = f_mu[f_p*F_UW +: F_UW];
    wire [F_KW-1:0] k = f_mk[f_p*F_KW +: F_KW];
    wire            l = f_ml[f_p];
    wire [7:0]      oq = u[87:80];
    wire [F_BW-1:0] nb = l ? f_popcount(k) : F_KW;
    wire [F_BW-1:0] beat = f_ob[f_p*F_BW +: F_BW];
    wire [15:0]     bytes = f_obytes[f_p*16 +: 16];
    always @(posedge clock)
        if (reset) begin
            f_ob[f_p*F_BW +: F_BW] <= 0;
            f_obytes[f_p*16 +: 16] <= 0;
        end else if (f_out[f_p]) begin
            f_ob[f_p*F_BW +: F_BW] <= l ? 0 : beat + 1'b1;
            f_obytes[f_p*16 +: 16] <= l ? 0 : bytes + nb;
            f_ou[f_p*F_UW +: F_UW] <= u;
        end
    // D: a departing beat belongs to a queue of this port, one tuser per
    // packet, packed tkeep, exactly tuser.length bytes, and its queue has
    // admitted more packets than have left.
    always @(*) if (f_run && f_out[f_p]) begin
        assert(oq[7:1] == f_p);
        if (beat != 0) assert(u == f_ou[f_p*F_UW +: F_UW]);
        assert(f_packed(k, l));
        if (l) assert(bytes + nb == u[31:16]);
        else assert(bytes + F_KW < u[31:16]);
        assert(f_dep[oq[1:0]*8 +: 8] != f_adm[oq[1:0]*8 +: 8]);
    end
    // E: AXI4-Stream output rules.
    always @(posedge clock) begin
        f_m_stalled[f_p] <= f_run && f_mv[f_p] && !f_mr[f_p];
        f_m_held[f_p*(F_DW+F_KW+1+F_UW) +: F_DW+F_KW+1+F_UW] <= {f_md[f_p*F_DW +: F_DW], k, l, u};
    end
    always @(*) if (f_run && f_m_stalled[f_p]) begin
        assert(f_mv[f_p]);
        assert({f_md[f_p*F_DW +: F_DW], k, l, u} == f_m_held[f_p*(F_DW+F_KW+1+F_UW) +: F_DW+F_KW+1+F_UW]);
    end
end endgenerate

// ---------------------------------------------------------------- B, C: per queue
genvar f_q;
generate for (f_q = 0; f_q < F_NQ; f_q = f_q + 1) begin : f_queue
    localparam P = f_q / 2;
    wire enq = admit__enq && admit__enq_q == f_q;
    wire [F_UW-1:0] u = f_mu[P*F_UW +: F_UW];
    wire deq = f_out[P] && f_ml[P] && u[87:80] == f_q;
    wire [31:0] deq_b = f_obytes[P*16 +: 16] + f_popcount(f_mk[P*F_KW +: F_KW]);
    wire [31:0] deq_w = f_ob[P*F_BW +: F_BW] + 1;
    wire [31:0] res_b = f_res_b[f_q*32 +: 32];
    wire [31:0] res_w = f_res_w[f_q*32 +: 32];
    always @(posedge clock)
        if (reset) begin
            f_adm[f_q*8 +: 8] <= 0;
            f_dep[f_q*8 +: 8] <= 0;
            f_res_b[f_q*32 +: 32] <= 0;
            f_res_w[f_q*32 +: 32] <= 0;
            f_fb[f_q*32 +: 32] <= 0;
            f_fw[f_q*32 +: 32] <= 0;
        end else begin
            f_fb[f_q*32 +: 32] <= deq ? deq_b : 0;
            f_fw[f_q*32 +: 32] <= deq ? deq_w : 0;
            f_adm[f_q*8 +: 8] <= f_adm[f_q*8 +: 8] + enq;
            f_dep[f_q*8 +: 8] <= f_dep[f_q*8 +: 8] + deq;
            f_res_b[f_q*32 +: 32] <= res_b + (enq ? f_len : 0) - (deq ? deq_b : 0);
            f_res_w[f_q*32 +: 32] <= res_w + (enq ? f_words : 0) - (deq ? deq_w : 0);
        end
    always @(*) if (f_run) begin
        // B: exact occupancy, within the limits
        assert(f_occ_b[f_q*32 +: 32] == res_b);
        assert(f_occ_w[f_q*32 +: 32] == res_w);
        assert(f_occ_w[f_q*32 +: 32] <= f_depth(f_q));
        assert(f_occ_b[f_q*32 +: 32] <= (f_q % 2 ? f_limit_d : f_limit_h));
        // C: no internal back-pressure from a full queue
        if (f_dv[f_q]) assert(f_dr[f_q]);
    end
end endgenerate

// ---------------------------------------------------------------- D: tracked packet
localparam F_T_IDLE = 2'd0, F_T_IN = 2'd1, F_T_QUEUED = 2'd2, F_T_GONE = 2'd3;
(* anyseq *)   reg f_pick;
(* anyconst *) reg [F_BW-1:0] f_tbeat;
always @(*) assume(f_tbeat < F_MAXB);
reg [1:0]       f_t_state;
reg [7:0]       f_tq;       // its queue
reg [7:0]       f_tn;       // packets admitted into f_tq before it
reg [F_UW-1:0]  f_tuser;    // the tuser it must leave with
reg [F_UW-1:0]  f_traw;     // its tuser as it came in
reg             f_tdec;     // admission decided it: admitted into f_tq
reg             f_thave;    // its beat f_tbeat has been accepted
reg [F_DW-1:0]  f_tdata;
reg [F_KW-1:0]  f_tkeep;
reg             f_tlast;
// Picked at its first beat into admission; its decision comes later (the
// pending one: f_pend); a packet admission drops is let go and another picked.
wire f_t_start = f_a && f_a_beat == 0 && f_pick && f_t_state == F_T_IDLE;
wire f_t_in = f_a && (f_t_start || f_t_state == F_T_IN);
wire f_t_dec = admit__dec_valid && (f_t_state == F_T_IN || f_t_state == F_T_QUEUED) && !f_tdec;
wire [1:0] f_tp_q = f_tq[1:0];
wire f_tp = f_tq[1];                                         // its port
wire f_t_turn = f_tdec && f_out[f_tp] && f_mu[f_tp*F_UW + 80 +: 8] == f_tq && f_dep[f_tp_q*8 +: 8] == f_tn
                && (f_t_state == F_T_IN || f_t_state == F_T_QUEUED);
always @(posedge clock)
    if (reset) begin
        f_t_state <= F_T_IDLE;
        f_thave <= 1'b0;
        f_tdec <= 1'b0;
    end else begin
        if (f_t_start) begin
            f_traw <= admit__s_tuser;
            f_thave <= 1'b0;
            f_tdec <= 1'b0;
        end
        if (f_t_dec && admit__enq) begin
            f_tdec <= 1'b1;
            f_tq <= admit__enq_q;
            f_tn <= f_adm[admit__enq_q[1:0]*8 +: 8];
            // Admission's tuser contract (hdl/src/meta.rs, `t_in`): bits
            // 0..78 as they came, 78..80 cleared, the queue at 80..88, and
            // a GRT's (bit 34) `t_in` moved from 78..88 and 90..96 (here
            // 0: assumed above) to 112..128; every other bit 0.
            f_tuser <= {f_traw[34] ? {f_traw[95:90], f_traw[87:78]} : 16'b0, 24'b0, admit__enq_q, 2'b00, f_traw[77:0]};
        end
        if (f_t_in && f_a_beat == f_tbeat) begin
            f_thave <= 1'b1;
            f_tdata <= admit__s_tdata;
            f_tkeep <= admit__s_tkeep;
            f_tlast <= admit__s_tlast;
        end
        case (f_t_state)
            F_T_IDLE: if (f_t_start) f_t_state <= admit__s_tlast ? F_T_QUEUED : F_T_IN;
            F_T_IN: if (f_a && admit__s_tlast) f_t_state <= F_T_QUEUED;
            default: ;
        endcase
        if (f_t_dec && !admit__enq) f_t_state <= F_T_IDLE;
        if (f_t_turn && f_ml[f_tp]) f_t_state <= F_T_GONE;
    end
// The n-th packet out of queue f_tq is the tracked one, beat for beat.
always @(*) if (f_run && f_t_turn) begin
    assert(f_mu[f_tp*F_UW +: F_UW] == f_tuser);
    if (f_ob[f_tp*F_BW +: F_BW] == f_tbeat) begin
        assert(f_thave);
        assert(f_mk[f_tp*F_KW +: F_KW] == f_tkeep);
        assert((f_md[f_tp*F_DW +: F_DW] & f_bytemask(f_tkeep)) == (f_tdata & f_bytemask(f_tkeep)));
`ifndef F_MUT_TM_LAST
        assert(f_ml[f_tp] == f_tlast);
`else
        assert(f_ml[f_tp] == 1'b0);                                 // mutant property: must fail
`endif
    end
end
// Its queue's departures pass its number only through it (counters mod 256;
// bounded runs are far shorter than 128 packets).
wire [7:0] f_t_ahead = f_tn - f_dep[f_tp_q*8 +: 8];
always @(*) if (f_run && f_tdec && (f_t_state == F_T_IN || f_t_state == F_T_QUEUED))
    assert(f_t_ahead < 8'd128);
