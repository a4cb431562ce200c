package io.rnic.cm;

/** A connection's state (IBTA 12.9.6, simplified to what an RC connection without path migration needs). */
public enum CmState
{
    /** Passive: a REQ arrived and waits for {@link ConnectionManager#accept}. */
    REQ_RCVD,
    /** Active: our REQ is out, waiting for the REP. */
    REQ_SENT,
    /** Passive: our REP is out, waiting for the RTU (or the first packet on the QP). */
    REP_SENT,
    ESTABLISHED,
    /** Our DREQ is out, waiting for the DREP. */
    DREQ_SENT,
    /** Disconnected (DREQ answered, or DREP received): the QP is in the error state. */
    DISCONNECTED,
    /** The peer rejected the REQ or the REP. */
    REJECTED,
    /** A REQ, REP or DREQ went unanswered through every retry. */
    TIMED_OUT
}
