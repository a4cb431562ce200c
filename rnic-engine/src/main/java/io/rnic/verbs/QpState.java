package io.rnic.verbs;

/** The ibverbs queue-pair states ({@code enum ibv_qp_state}). */
public enum QpState
{
    RESET,
    INIT,
    RTR,
    RTS,
    SQD,
    SQE,
    ERR
}
