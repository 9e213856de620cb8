// Port-level properties of a store-and-forward AXI4-Stream packet queue that
// drops whole packets (s_tready may be anything), for SymbiYosys. `trimswitch formal` includes this file inside the
// emitted top module (yosys has no `bind`), so it sees the ports by name:
//   clock, reset, s_tdata, s_tkeep, s_tlast, s_tuser, s_tvalid, s_tready,
//   s_abort, m_tdata, m_tkeep, m_tlast, m_tuser, m_tvalid, m_tready,
//   occ_bytes, occ_pkts, drop_pkts, clear_drops.
// Every name declared here starts with `f_`. The includer defines, before this
// file, the localparams
//   F_DW, F_KW, F_UW  tdata / tkeep / tuser widths
//   F_MAXB            longest packet in beats (an assumption on the source)
//   F_MAXWORDS        most committed words the block can hold (RAM + output buffer)
//   F_STALL           most cycles m_tvalid may stay low while a committed
//                     word waits (read latency)
// and may define these macros:
//   F_RESET_ANY       reset may rise at any cycle (default: only in cycle 0)
//   F_NO_CLEAR        assume clear_drops stays low
//   F_ALL_BEATS       also check the format of every output beat (needs
//                     invariants on every stored word: use with bmc)
//   F_LEN_LSB=n       assume tuser[n +: 16] on a packet's first beat is its
//                     byte count (the traffic manager's admission input)
//   F_MUT_*           deliberately wrong properties (the test's mutants)
//
// The design-specific invariant file (e.g. pkt_fifo_inv.svh) uses the f_
// state below to strengthen the induction.
//
// How "no loss, no duplication, order kept, same data" is proved: the solver
// picks one input packet (f_pick, free each cycle, first packet started while it
// is high) and one beat index f_beat (anyconst). The wrapper counts committed
// words waiting for output (f_q_eff) and knows how many words must leave
// before the tracked beat (f_pos). The tracked beat must leave exactly when
// f_pos reaches 0, with its data, keep, last and the packet's first-beat tuser,
// and only if its packet was committed. Nothing may leave when no committed word
// waits. As the packet and beat are arbitrary, the output word sequence is
// exactly the concatenation of the committed packets, in order.

localparam F_CW = 16;                       // width of word/packet counters
localparam F_BW = 8;                        // width of a beat index
localparam [F_KW-1:0] F_ALL_KEEP = {F_KW{1'b1}};

function automatic [F_BW-1:0] f_popcount(input [F_KW-1:0] k);
    integer i;
    begin
        f_popcount = 0;
        for (i = 0; i < F_KW; i = i + 1)
            f_popcount = f_popcount + k[i];
    end
endfunction

// ---------------------------------------------------------------- reset
reg f_past_valid;
initial f_past_valid = 1'b0;
always @(posedge clock) f_past_valid <= 1'b1;
// Reset is high in the first cycle, so every register is reset before any
// check; nothing else is assumed about the initial state.
always @(*) if (!f_past_valid) assume(reset);
`ifndef F_RESET_ANY
always @(*) if (f_past_valid) assume(!reset);
`endif
// Checks are on from the first cycle after a reset edge.
wire f_run = f_past_valid && !reset;

// ---------------------------------------------------------------- input side
wire f_in = s_tvalid && s_tready;
reg [F_BW-1:0] f_in_beat;      // beats of the current input packet accepted so far
reg [31:0]     f_in_bytes;     // its bytes so far
reg            f_in_abort;     // s_abort seen on one of its beats
reg [F_UW-1:0] f_in_user;      // its first beat's tuser
wire [F_BW-1:0] f_nb_in = s_tlast ? f_popcount(s_tkeep) : F_KW;
wire            f_in_aborted = f_in_abort || s_abort;

// Source assumptions (AXI4-Stream and this project's tkeep rule).
always @(*) if (f_in) begin
    if (!s_tlast) assume(s_tkeep == F_ALL_KEEP);                    // packed, full
    else assume(s_tkeep != 0 && (s_tkeep & (s_tkeep + 1'b1)) == 0); // packed, >= 1 byte
    if (f_in_beat == F_MAXB - 1) assume(s_tlast);                    // at most F_MAXB beats
end
reg f_s_stalled;
reg [F_DW+F_KW+1+F_UW:0] f_s_held;
always @(posedge clock) begin
    f_s_stalled <= !reset && s_tvalid && !s_tready;
    f_s_held <= {s_tdata, s_tkeep, s_tlast, s_tuser, s_abort};
end
always @(*) if (f_past_valid && !reset && f_s_stalled) begin
    assume(s_tvalid);
    assume({s_tdata, s_tkeep, s_tlast, s_tuser, s_abort} == f_s_held);
end
`ifdef F_LEN_LSB
reg [15:0] f_in_len;
wire [15:0] f_len_now = (f_in_beat == 0) ? s_tuser[`F_LEN_LSB +: 16] : f_in_len;
always @(*) if (f_in) begin
    if (s_tlast) assume(f_in_bytes + f_nb_in == f_len_now);
    else assume(f_in_bytes + F_KW < f_len_now);
end
always @(posedge clock) if (f_in && f_in_beat == 0) f_in_len <= s_tuser[`F_LEN_LSB +: 16];
`endif
`ifdef F_NO_CLEAR
always @(*) assume(!clear_drops);
`endif

always @(posedge clock)
    if (reset) begin
        f_in_beat <= 0;
        f_in_bytes <= 0;
        f_in_abort <= 1'b0;
    end else if (f_in) begin
        if (f_in_beat == 0) f_in_user <= s_tuser;
        if (s_tlast) begin
            f_in_beat <= 0;
            f_in_bytes <= 0;
            f_in_abort <= 1'b0;
        end else begin
            f_in_beat <= f_in_beat + 1'b1;
            f_in_bytes <= f_in_bytes + f_nb_in;
            f_in_abort <= f_in_aborted;
        end
    end
always @(*) if (f_run) begin
    assert(f_in_beat < F_MAXB);
    assert(f_in_bytes == f_in_beat * F_KW);     // non-last beats are full
end

// ---------------------------------------------------------------- verdicts
// A packet not aborted by any of its beats ends at cycle L; at L+1 drop_pkts
// tells whether it was dropped (+1) or committed (unchanged). A clear at L does
// not hide the verdict: drop_pkts(L+1) = (clear ? 0 : drop_pkts(L)) + dropped.
reg            f_v_pend;        // a non-aborted packet ended last cycle
reg [F_CW-1:0] f_v_words;       // its beats
reg [31:0]     f_v_bytes;       // its bytes
reg [31:0]     f_drop_base;     // drop_pkts expected without a new drop
always @(posedge clock) begin
    f_v_pend <= !reset && f_in && s_tlast && !f_in_aborted;
    f_v_words <= f_in_beat + 1'b1;
    f_v_bytes <= f_in_bytes + f_nb_in;
    f_drop_base <= (reset || clear_drops) ? 32'd0 : drop_pkts;
end
wire f_v_drop = f_v_pend && drop_pkts == f_drop_base + 1;
wire f_v_commit = f_v_pend && !f_v_drop;
// drop_pkts moves only by a clear or by one for a packet that ended unaborted.
always @(*) if (f_run)
    assert(drop_pkts == f_drop_base || f_v_drop);

// ---------------------------------------------------------------- output side
wire f_pop = m_tvalid && m_tready;
wire [F_BW-1:0] f_nb_out = f_popcount(m_tkeep);
reg  [F_CW-1:0] f_q_words;   // committed words not yet out (verdicts before this cycle)
reg  [F_CW-1:0] f_q_pkts;    // committed packets not yet out
wire [F_CW-1:0] f_q_eff = f_q_words + (f_v_commit ? f_v_words : 0);
wire [F_CW-1:0] f_q_pkts_eff = f_q_pkts + f_v_commit;
always @(posedge clock)
    if (reset) begin
        f_q_words <= 0;
        f_q_pkts <= 0;
    end else begin
        f_q_words <= f_q_eff - f_pop;
        f_q_pkts <= f_q_pkts_eff - (f_pop && m_tlast);
    end
// Store and forward, no invented data: a beat leaves only if a committed word waits.
always @(*) if (f_run && f_pop) assert(f_q_eff != 0);
// No overflow seen from the ports: words committed and not read out never
// exceed the storage (RAM plus output buffer).
always @(*) if (f_run) assert(f_q_eff <= F_MAXWORDS);

// AXI4-Stream: once valid, the beat stays, unchanged, until taken.
reg f_m_stalled;
reg [F_DW+F_KW+F_UW:0] f_m_held;
always @(posedge clock) begin
    f_m_stalled <= f_run && m_tvalid && !m_tready;
    f_m_held <= {m_tdata, m_tkeep, m_tlast, m_tuser};
end
always @(*) if (f_run && f_m_stalled) begin
    assert(m_tvalid);
`ifndef F_MUT_DATA_UNSTABLE
    assert({m_tdata, m_tkeep, m_tlast, m_tuser} == f_m_held);
`else
    assert({m_tdata, m_tkeep, m_tlast, m_tuser} != f_m_held);   // mutant: must fail
`endif
end
always @(*) if (f_run && !m_tvalid) assert(!(m_tvalid && m_tready));
// A committed word reaches the port within F_STALL cycles (bounded liveness,
// whatever m_tready does: the FIFO fills its output buffer regardless).
reg [7:0] f_stall;
always @(posedge clock)
    if (reset || m_tvalid || f_q_eff == 0) f_stall <= 0;
    else f_stall <= f_stall + 1'b1;
always @(*) if (f_run) assert(f_stall <= F_STALL);

`ifdef F_ALL_BEATS
always @(*) if (f_run && m_tvalid) begin
    if (!m_tlast) assert(m_tkeep == F_ALL_KEEP);
    else assert(m_tkeep != 0 && (m_tkeep & (m_tkeep + 1'b1)) == 0);
end
reg            f_o_mid;     // an output packet has started and not ended
reg [F_UW-1:0] f_o_user;
always @(posedge clock)
    if (reset) f_o_mid <= 1'b0;
    else if (f_pop) begin
        f_o_mid <= !m_tlast;
        f_o_user <= m_tuser;
    end
always @(*) if (f_run && m_tvalid && f_o_mid) assert(m_tuser == f_o_user);  // one tuser per packet
always @(*) if (f_run && f_pop && m_tlast) assert(f_q_pkts_eff != 0);
`endif

// ---------------------------------------------------------------- counters
// occ_pkts / occ_bytes: a packet counts from two cycles after its last beat in
// (the cycle after its verdict cycle) and a beat stops counting two cycles
// after it left (registered counters fed by a registered commit and pop).
reg [31:0] f_occ_pkts_base, f_occ_bytes_base;
always @(posedge clock)
    if (reset) begin
        f_occ_pkts_base <= 0;
        f_occ_bytes_base <= 0;
    end else begin
        f_occ_pkts_base <= f_occ_pkts_base + f_v_commit - (f_pop && m_tlast);
        f_occ_bytes_base <= f_occ_bytes_base + (f_v_commit ? f_v_bytes : 0) - (f_pop ? f_nb_out : 0);
    end
reg f_pop_last_d;
reg [F_BW-1:0] f_pop_bytes_d;
always @(posedge clock) begin
    f_pop_last_d <= f_run && f_pop && m_tlast;
    f_pop_bytes_d <= (f_run && f_pop) ? f_nb_out : 0;
end
wire [31:0] f_occ_pkts_exp = f_occ_pkts_base + f_pop_last_d;
wire [31:0] f_occ_bytes_exp = f_occ_bytes_base + f_pop_bytes_d;
always @(*) if (f_run) begin
    assert(occ_pkts == f_occ_pkts_exp);
`ifndef F_MUT_OCC_BYTES
    assert(occ_bytes == f_occ_bytes_exp);
`else
    assert(occ_bytes == f_occ_bytes_exp - f_pop_bytes_d);             // mutant: wrong timing
`endif
end

// ---------------------------------------------------------------- tracked packet
localparam F_IDLE = 3'd0, F_IN = 3'd1, F_ENDED = 3'd2, F_QUEUED = 3'd3, F_DONE = 3'd4, F_GONE = 3'd5;
(* anyseq *)   reg f_pick;
(* anyconst *) reg [F_BW-1:0] f_beat;
always @(*) assume(f_beat < F_MAXB);
reg [2:0]      f_state;
reg            f_have;      // the tracked beat has been accepted
reg [F_CW-1:0] f_pos;       // words that leave before it
reg [F_DW-1:0] f_data;
reg [F_KW-1:0] f_keep;
reg            f_last;
reg [F_UW-1:0] f_user;
reg [F_CW-1:0] f_words;     // beats of the tracked packet (valid from F_ENDED)

wire f_start = f_in && f_in_beat == 0 && f_state == F_IDLE && f_pick;
wire f_trk_in = f_in && (f_start || f_state == F_IN);   // a beat of the tracked packet
wire f_trk_beat = f_trk_in && f_in_beat == f_beat;      // the tracked beat itself
wire f_trk_out = f_pop && f_have && f_pos == 0 && (f_state == F_QUEUED);

always @(posedge clock)
    if (reset) begin
        f_state <= F_IDLE;
        f_have <= 1'b0;
    end else begin
        if (f_have && f_pop && f_pos != 0) f_pos <= f_pos - 1'b1;
        if (f_trk_beat) begin
            f_have <= 1'b1;
            f_pos <= f_q_eff + f_beat - f_pop;
            f_data <= s_tdata;
            f_keep <= s_tkeep;
            f_last <= s_tlast;
            f_user <= f_beat == 0 ? s_tuser : f_in_user;
        end
        if (f_trk_in && s_tlast) f_words <= f_in_beat + 1'b1;
        case (f_state)
            F_IDLE: if (f_start) f_state <= s_tlast ? (f_in_aborted ? F_GONE : F_ENDED) : F_IN;
            F_IN: if (f_in && s_tlast) f_state <= f_in_aborted ? F_GONE : F_ENDED;
            F_ENDED: f_state <= (f_v_commit && f_have) ? F_QUEUED : F_GONE;
            F_QUEUED: if (f_trk_out) f_state <= F_DONE;
            default: ;
        endcase
    end

// The tracked beat leaves only as the word at its turn, committed, unchanged.
always @(*) if (f_run && f_pop && f_have && f_pos == 0 && f_state != F_DONE && f_state != F_GONE) begin
    assert(f_state == F_QUEUED);
    assert((m_tdata & f_bytemask(m_tkeep)) == (f_data & f_bytemask(f_keep)));
    assert(m_tkeep == f_keep);
`ifndef F_MUT_LAST
    assert(m_tlast == f_last);
`else
    assert(m_tlast == 1'b0);                                          // mutant: must fail
`endif
    assert(m_tuser == f_user);
end
function automatic [F_DW-1:0] f_bytemask(input [F_KW-1:0] k);
    integer i;
    begin
        for (i = 0; i < F_DW; i = i + 1) f_bytemask[i] = k[i / 8];
    end
endfunction

// Bookkeeping invariants of the tracker (design-independent).
always @(*) if (f_run) begin
    if (f_have) begin
        if (!f_last) assert(f_keep == F_ALL_KEEP);
        else assert(f_keep != 0 && (f_keep & (f_keep + 1'b1)) == 0);
    end
    assert(f_state <= F_GONE);
    if (f_state == F_IDLE) assert(!f_have);
    if (f_state == F_IN) begin
        assert(f_in_beat != 0);
        assert(f_have == (f_in_beat > f_beat));
        if (f_have) assert(f_pos == f_q_eff + f_beat && !f_last);
        assert(!f_v_pend);
    end
    if (f_state == F_ENDED) begin
        assert(f_v_pend);
        assert(f_in_beat == 0);
        assert(f_have == (f_words > f_beat));
        assert(f_words != 0 && f_words <= F_MAXB);
        assert(f_v_words == f_words);
        if (f_have) assert(f_last == (f_beat == f_words - 1));
        if (f_have && f_v_commit) assert(f_pos + f_words - f_beat == f_q_eff);
    end
    if (f_state == F_QUEUED) begin
        assert(f_have);
        assert(f_words > f_beat && f_words <= F_MAXB);
        assert(f_pos + f_words - f_beat <= f_q_eff);
        assert(f_last == (f_beat == f_words - 1));
    end
end
