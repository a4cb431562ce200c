package io.rnic.verbs;

/**
 * One work completion ({@code struct ibv_wc}), filled by {@link CompletionQueue#poll}. Mutable and reused: an
 * application keeps an array of them and polls into it, so polling allocates nothing.
 */
public final class WorkCompletion
{
    /** {@code wc_flags}: immediate data is valid. */
    public static final int WITH_IMM = 1 << 1;
    /** {@code wc_flags}: a GRH (for RoCEv2: the IP header) is in the first 40 bytes of the receive buffer. */
    public static final int GRH = 1 << 0;
    /** {@code wc_flags}: the SEND carried an R_Key to invalidate. */
    public static final int WITH_INV = 1 << 3;

    /** Network header types of a UD receive on RoCEv2 ({@code enum rdma_network_type} of the CQE). */
    public static final int NETWORK_HDR_IPV4 = 2;
    public static final int NETWORK_HDR_IPV6 = 3;

    long wrId;
    int status;
    int opcode;
    int vendorError;
    int byteLength;
    int immediateOrInvalidatedRKey;
    int qpNumber;
    int sourceQp;
    int flags;
    int pkeyIndex;
    int serviceLevel;
    int networkHeaderType;

    public long wrId()
    {
        return wrId;
    }

    public WcStatus status()
    {
        return WcStatus.of(status);
    }

    public int statusValue()
    {
        return status;
    }

    /** One of {@link WcOpcode}. Only defined for successful completions, as in ibverbs. */
    public int opcode()
    {
        return opcode;
    }

    public int vendorError()
    {
        return vendorError;
    }

    public int byteLength()
    {
        return byteLength;
    }

    /** Immediate data (when {@link #WITH_IMM}) or the invalidated R_Key (when {@link #WITH_INV}). */
    public int immediateData()
    {
        return immediateOrInvalidatedRKey;
    }

    public int qpNumber()
    {
        return qpNumber;
    }

    /** Source QP of a UD receive. */
    public int sourceQp()
    {
        return sourceQp;
    }

    public int flags()
    {
        return flags;
    }

    public boolean hasFlag(final int flag)
    {
        return (flags & flag) != 0;
    }

    public int pkeyIndex()
    {
        return pkeyIndex;
    }

    public int serviceLevel()
    {
        return serviceLevel;
    }

    /** {@link #NETWORK_HDR_IPV4} or {@link #NETWORK_HDR_IPV6} for UD receives, 0 otherwise. */
    public int networkHeaderType()
    {
        return networkHeaderType;
    }

    public String toString()
    {
        return "WorkCompletion{wrId=" + wrId + ", status=" + status() + ", opcode=" + WcOpcode.name(opcode) +
            ", byteLength=" + byteLength + ", qp=" + qpNumber + ", flags=" + flags + '}';
    }
}
