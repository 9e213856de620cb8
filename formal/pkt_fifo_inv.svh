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
    assert({1'b0, ocount__q} + inflight__q <= 3);
end

// ---- the wrapper's view against the FIFO's state
always @(*) if (f_run) begin
    assert(f_q_eff == ocount__q + inflight__q + readable__q);
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
    assert(sub_q__q == f_pop_bytes_d);
    assert(pkt_out_q__q == f_pop_last_d);
end

// ---- where the tracked beat is stored
reg [15:0] f_addr;                                           // RAM address it was written to
always @(posedge clock) if (f_trk_beat) f_addr <= wr_ptr__q;
wire [F_M-2:0] f_nb_trk = f_last ? f_popcount(f_keep) : F_KW;
localparam F_W = F_UW + F_M + F_DW;
wire [F_W-1:0] f_word = {f_user, f_nb_trk, f_last, f_data};
wire [F_CW-1:0] f_k = f_pos - ocount__q - inflight__q;     // its place in the RAM
wire f_stored = f_have && ((f_state == F_IN && !dropping__q) || (f_state == F_ENDED && f_v_commit) || f_state == F_QUEUED);
always @(*) if (f_run && f_stored) begin
    if (f_pos < ocount__q) begin
        if (f_pos == 0) assert(head__q == f_word);
        if (f_pos == 1) assert(second__q == f_word);
        if (f_pos == 2) assert(third__q == f_word);
    end else if (f_pos == ocount__q && inflight__q) begin
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
    if (ocount__q >= 1) assert(f_wf(head__q));
    if (ocount__q >= 2) assert(f_wf(second__q));
    if (ocount__q >= 3) assert(f_wf(third__q));
    if (inflight__q) assert(f_wf(ram__read_data));
    for (f_i = 0; f_i < F_DEPTH; f_i = f_i + 1)
        if ((f_i + F_DEPTH - rd_ptr__q) % F_DEPTH < used__q)
            assert(f_wf(ram__f_mem[f_i * F_W +: F_W]));
end
