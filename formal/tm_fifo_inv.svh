// Invariants of one queue FIFO of the traffic manager (a cut-through
// ts_pkt_fifo inside ts_tm_core__port_<p>__hq / __dq). `trimswitch formal`
// includes this file at the end of each of those modules, after
// `localparam F_DEPTH = <words>;`. The top (tm_props.svh) holds reset high in
// cycle 0; the checks here start in the cycle after.
//
// Property 1 at the queue: the FIFO's RAM never holds more than its depth,
// its pointers stay consistent, and the traffic manager never offers it a beat
// it cannot take (s_tready is never low while s_tvalid is high), i.e. exact
// admission leaves no back-pressure from a full queue.
reg f_fpv;
initial f_fpv = 1'b0;
always @(posedge clock) f_fpv <= 1'b1;
wire f_frun = f_fpv && !reset;
always @(*) if (f_frun) begin
    assert(used__q <= F_DEPTH);
    assert(wr_ptr__q < F_DEPTH && rd_ptr__q < F_DEPTH);
    // wr_ptr == (rd_ptr + used) mod F_DEPTH, without a division
    assert(wr_ptr__q == (rd_ptr__q + used__q >= F_DEPTH ? rd_ptr__q + used__q - F_DEPTH : rd_ptr__q + used__q));
    // cut-through: every beat is readable once written, nothing is dropped
    assert(readable__q == used__q && pkt_words__q == 0 && !dropping__q);
    assert(ocount__q + inflight__q + rd_valid__q <= 4);
    assert(pkt_empty__q);
    if (s_tvalid) assert(s_tready);
end
