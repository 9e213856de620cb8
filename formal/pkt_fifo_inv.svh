// Design-specific part of the ts_pkt_fifo proof (store-and-forward mode):
// property 1 (the RAM never overflows) on the FIFO's own pointers, and the
// invariants that make the port-level properties of axis_pkt_props.svh
// inductive. Included after axis_pkt_props.svh inside module ts_pkt_fifo, so
// it sees the emitted internal wires (`used__q` is the q output of the `used`
// register, and so on). Needs the localparams F_DEPTH and F_M (meta bits) and
// the RAM probe that `trimswitch formal` adds to the emitted RAM module
// (output ram__f_mem: every word of `mem`, word i at [i*W +: W]).
//
// Retargeting to another queue: keep axis_pkt_props.svh, write a file like
// this one for the new design's pointers and storage.

// F_PORT_ONLY leaves all of this out: a mutant run with it must be caught by
// the port-level properties of axis_pkt_props.svh alone.
`ifndef F_PORT_ONLY
// ---- property 1: no overflow, pointers consistent
always @(*) if (f_run) begin
    assert(wr_ptr__q < F_DEPTH);
    assert(rd_ptr__q < F_DEPTH);
    assert(wr_commit__q < F_DEPTH);
    assert(used__q <= F_DEPTH);                              // occupancy <= depth
    assert(full_q__q == (used__q == F_DEPTH));               // the registered full flag
    assert(readable_nz__q == (readable__q != 0));            // the registered readable flag
    if (write) assert(used__q < F_DEPTH);                    // never writes over an unread word
    assert(readable__q <= used__q && pkt_words__q <= used__q);
    assert(used__q == readable__q + pkt_words__q);
    // the write pointer is `used` words ahead of the read pointer: it never
    // passes it (used <= depth)
    assert(wr_ptr__q == (rd_ptr__q + used__q) % F_DEPTH);
    assert(wr_commit__q == (rd_ptr__q + readable__q) % F_DEPTH);
    assert(ocount__q + inflight__q + rd_valid__q <= 4);          // the output buffer never overflows
    assert(wr_idx__q == ((rd_idx__q + ocount__q) & 2'd3));   // the ring's pointers
    assert(pkt_empty__q == (pkt_words__q == 0));             // the registered empty-packet flag
end

// ---- the wrapper's view against the FIFO's state
always @(*) if (f_run) begin
    assert(f_q_eff == ocount__q + rd_valid__q + inflight__q + readable__q);
    assert(first__q == (f_in_beat == 0));
    if (!dropping__q) begin
        assert(pkt_words__q == f_in_beat);
        assert(!f_in_abort);
    end else begin
        assert(pkt_words__q == 0);
        assert(f_in_beat != 0);
        assert(overflowed__q == !f_in_abort);
    end
    assert(pkt_bytes__q == pkt_words__q * F_KW);
    if (f_in_beat != 0) assert(user_lat__q == f_in_user);
    assert(add_q__q == (f_v_commit ? f_v_bytes : 0));        // a commit's bytes, one cycle on
    assert(pkt_in_q__q == f_v_commit);
    assert(sub_q__q == f_pop_bytes_d);
    assert(pkt_out_q__q == f_pop_last_d);
end

// ---- where the tracked beat is stored
// entry i of the output buffer's ring
function automatic [F_UW + F_M + F_DW - 1:0] f_obuf(input [1:0] i);
    f_obuf = i == 0 ? obuf_0__q : i == 1 ? obuf_1__q : i == 2 ? obuf_2__q : obuf_3__q;
endfunction
reg [15:0] f_addr;                                           // RAM address it was written to
always @(posedge clock) if (f_trk_beat) f_addr <= wr_ptr__q;
wire [F_M-2:0] f_nb_trk = f_last ? f_popcount(f_keep) : F_KW;
localparam F_W = F_UW + F_M + F_DW;
wire [F_W-1:0] f_word = {f_user, f_nb_trk, f_last, f_data};
// the head's registered byte count (`m_bytes`, `m_tkeep`) is the head word's
wire [F_W-1:0] f_head = f_obuf(rd_idx__q);
always @(*) if (f_run && ocount__q != 0) assert(head_nb_q__q == {1'b0, f_head[F_DW + 1 +: F_M - 1]});
wire [F_CW-1:0] f_k = f_pos - ocount__q - rd_valid__q - inflight__q;     // its place in the RAM
wire f_stored = f_have && ((f_state == F_IN && !dropping__q) || (f_state == F_ENDED && f_v_commit) || f_state == F_QUEUED);
always @(*) if (f_run && f_stored) begin
    if (f_pos < ocount__q) begin
        assert(f_obuf((rd_idx__q + f_pos) & 2'd3) == f_word);
    end else if (f_pos == ocount__q && rd_valid__q) begin
        assert(rd_word__q == f_word);
    end else if (f_pos == ocount__q + rd_valid__q && inflight__q) begin
        assert(ram__read_data == f_word);
    end else begin
        assert(f_k < used__q);
        assert(f_addr == (rd_ptr__q + f_k) % F_DEPTH);
        assert(ram__f_mem[f_addr * F_W +: F_W] == f_word);
    end
end

// ---- every stored word is well formed: the meta field holds the last bit and
// a byte count of K on a non-last beat, 1..K on a last beat
function automatic f_wf(input [F_W-1:0] w);
    reg [F_M-2:0] nb;
    begin
        nb = w[F_DW + 1 +: F_M - 1];
        f_wf = w[F_DW] ? (nb >= 1 && nb <= F_KW) : (nb == F_KW);
    end
endfunction
integer f_i;
always @(*) if (f_run) begin
    for (f_i = 0; f_i < 4; f_i = f_i + 1)
        if (f_i < ocount__q) assert(f_wf(f_obuf(rd_idx__q + f_i)));
    if (rd_valid__q) assert(f_wf(rd_word__q));
    if (inflight__q) assert(f_wf(ram__read_data));
    for (f_i = 0; f_i < F_DEPTH; f_i = f_i + 1)
        if ((f_i + F_DEPTH - rd_ptr__q) % F_DEPTH < used__q)
            assert(f_wf(ram__f_mem[f_i * F_W +: F_W]));
end
`endif
