package io.rnic.verbs;

/** What a work completion completes, with the values of {@code enum ibv_wc_opcode}. */
public final class WcOpcode
{
    public static final int SEND = 0;
    public static final int RDMA_WRITE = 1;
    public static final int RDMA_READ = 2;
    public static final int COMP_SWAP = 3;
    public static final int FETCH_ADD = 4;
    public static final int BIND_MW = 5;
    public static final int LOCAL_INV = 6;
    /** {@code IBV_WC_FLUSH} (rdma-core 45 on). */
    public static final int FLUSH = 8;
    /** {@code IBV_WC_ATOMIC_WRITE}. */
    public static final int ATOMIC_WRITE = 9;
    /** Receive completions have bit 7 set, as in ibverbs. */
    public static final int RECV = 1 << 7;
    public static final int RECV_RDMA_WITH_IMM = RECV + 1;

    private WcOpcode()
    {
    }

    public static String name(final int opcode)
    {
        return switch (opcode)
        {
            case SEND -> "SEND";
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_READ -> "RDMA_READ";
            case COMP_SWAP -> "COMP_SWAP";
            case FETCH_ADD -> "FETCH_ADD";
            case BIND_MW -> "BIND_MW";
            case LOCAL_INV -> "LOCAL_INV";
            case FLUSH -> "FLUSH";
            case ATOMIC_WRITE -> "ATOMIC_WRITE";
            case RECV -> "RECV";
            case RECV_RDMA_WITH_IMM -> "RECV_RDMA_WITH_IMM";
            default -> "UNKNOWN_" + opcode;
        };
    }
}
