package io.rnic.verbs;

/** Send work request opcodes, with the values of {@code enum ibv_wr_opcode}. */
public final class WrOpcode
{
    public static final int RDMA_WRITE = 0;
    public static final int RDMA_WRITE_WITH_IMM = 1;
    public static final int SEND = 2;
    public static final int SEND_WITH_IMM = 3;
    public static final int RDMA_READ = 4;
    public static final int ATOMIC_CMP_AND_SWP = 5;
    public static final int ATOMIC_FETCH_AND_ADD = 6;
    public static final int SEND_WITH_INV = 9;
    /** Invalidates a type 2B memory window's R_Key on the send queue ({@code IBV_WR_LOCAL_INV}); no packet. */
    public static final int LOCAL_INV = 7;
    /** Binds a memory window on the send queue ({@code IBV_WR_BIND_MW}); no packet. */
    public static final int BIND_MW = 8;
    /** IBTA 1.5 FLUSH ({@code IBV_WR_FLUSH}, rdma-core 45 on): RC only. */
    public static final int FLUSH = 14;
    /** IBTA 1.5 ATOMIC WRITE ({@code IBV_WR_ATOMIC_WRITE}): RC only, 8 bytes from the scatter/gather list. */
    public static final int ATOMIC_WRITE = 15;

    private WrOpcode()
    {
    }

    public static boolean isKnown(final int opcode)
    {
        return (opcode >= RDMA_WRITE && opcode <= ATOMIC_FETCH_AND_ADD) || opcode == SEND_WITH_INV ||
            opcode == FLUSH || opcode == ATOMIC_WRITE || isLocalOperation(opcode);
    }

    /**
     * Whether the operation is executed by the RNIC on its own memory-window state, without a packet (rxe's
     * {@code WR_LOCAL_OP_MASK}): it runs once every earlier work request of the queue has completed.
     */
    public static boolean isLocalOperation(final int opcode)
    {
        return opcode == BIND_MW || opcode == LOCAL_INV;
    }

    /** Whether a QP of this type can carry the operation (UC: SEND and WRITE; UD: SEND only). */
    public static boolean isSupportedBy(final QpType type, final int opcode)
    {
        return switch (type)
        {
            case RC -> isKnown(opcode);
            case UC -> opcode == RDMA_WRITE || opcode == RDMA_WRITE_WITH_IMM || opcode == SEND || opcode == SEND_WITH_IMM ||
                isLocalOperation(opcode);
            case UD -> opcode == SEND || opcode == SEND_WITH_IMM;
        };
    }

    public static String name(final int opcode)
    {
        return switch (opcode)
        {
            case RDMA_WRITE -> "RDMA_WRITE";
            case RDMA_WRITE_WITH_IMM -> "RDMA_WRITE_WITH_IMM";
            case SEND -> "SEND";
            case SEND_WITH_IMM -> "SEND_WITH_IMM";
            case RDMA_READ -> "RDMA_READ";
            case ATOMIC_CMP_AND_SWP -> "ATOMIC_CMP_AND_SWP";
            case ATOMIC_FETCH_AND_ADD -> "ATOMIC_FETCH_AND_ADD";
            case SEND_WITH_INV -> "SEND_WITH_INV";
            case FLUSH -> "FLUSH";
            case ATOMIC_WRITE -> "ATOMIC_WRITE";
            case LOCAL_INV -> "LOCAL_INV";
            case BIND_MW -> "BIND_MW";
            default -> "UNKNOWN_" + opcode;
        };
    }

    /** The work-completion opcode a successful send completion of this operation carries. */
    public static int completionOpcode(final int opcode)
    {
        return switch (opcode)
        {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case FLUSH -> WcOpcode.FLUSH;
            case ATOMIC_WRITE -> WcOpcode.ATOMIC_WRITE;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            case BIND_MW -> WcOpcode.BIND_MW;
            default -> WcOpcode.SEND;
        };
    }
}
