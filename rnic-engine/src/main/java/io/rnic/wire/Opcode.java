package io.rnic.wire;

/**
 * The one opcode table of the engine, in the shape of rxe's {@code rxe_opcode.c}: indexed by the 8-bit BTH
 * opcode, it gives the name, the class of operation, which extension headers follow the BTH, the offset of
 * each of them from the start of the BTH, and the total header length (BTH + extension headers).
 * Nothing else in the engine hard-codes where an extension header sits.
 *
 * <pre>
 *   opcode = transport (bits 7..5: 000 RC, 001 UC, 010 RD, 011 UD, 100 CNP) | operation (bits 4..0)
 *   wire order after the BTH: DETH, FETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH, (CNP: 16 reserved)
 * </pre>
 * The IBTA 1.5 operations (Annex A19) are RC only, as in rxe (kernel 6.2 on): FLUSH (0x1C, FETH and RETH, no payload)
 * and ATOMIC WRITE (0x1D, RETH and 8 bytes of payload); both are answered with an RDMA READ RESPONSE ONLY of zero
 * length.
 */
public final class Opcode
{
    // ---- transports (bits 7..5)
    public static final int TRANSPORT_RC = 0x00;
    public static final int TRANSPORT_UC = 0x20;
    public static final int TRANSPORT_RD = 0x40;
    public static final int TRANSPORT_UD = 0x60;
    public static final int TRANSPORT_CNP = 0x80;

    // ---- operations (bits 4..0)
    public static final int SEND_FIRST = 0x00;
    public static final int SEND_MIDDLE = 0x01;
    public static final int SEND_LAST = 0x02;
    public static final int SEND_LAST_WITH_IMMEDIATE = 0x03;
    public static final int SEND_ONLY = 0x04;
    public static final int SEND_ONLY_WITH_IMMEDIATE = 0x05;
    public static final int RDMA_WRITE_FIRST = 0x06;
    public static final int RDMA_WRITE_MIDDLE = 0x07;
    public static final int RDMA_WRITE_LAST = 0x08;
    public static final int RDMA_WRITE_LAST_WITH_IMMEDIATE = 0x09;
    public static final int RDMA_WRITE_ONLY = 0x0A;
    public static final int RDMA_WRITE_ONLY_WITH_IMMEDIATE = 0x0B;
    public static final int RDMA_READ_REQUEST = 0x0C;
    public static final int RDMA_READ_RESPONSE_FIRST = 0x0D;
    public static final int RDMA_READ_RESPONSE_MIDDLE = 0x0E;
    public static final int RDMA_READ_RESPONSE_LAST = 0x0F;
    public static final int RDMA_READ_RESPONSE_ONLY = 0x10;
    public static final int ACKNOWLEDGE = 0x11;
    public static final int ATOMIC_ACKNOWLEDGE = 0x12;
    public static final int COMPARE_SWAP = 0x13;
    public static final int FETCH_ADD = 0x14;
    public static final int SEND_LAST_WITH_INVALIDATE = 0x16;
    public static final int SEND_ONLY_WITH_INVALIDATE = 0x17;
    public static final int FLUSH = 0x1C;
    public static final int ATOMIC_WRITE = 0x1D;

    // ---- full opcodes used by name elsewhere
    public static final int RC_SEND_FIRST = TRANSPORT_RC | SEND_FIRST;
    public static final int RC_SEND_MIDDLE = TRANSPORT_RC | SEND_MIDDLE;
    public static final int RC_SEND_LAST = TRANSPORT_RC | SEND_LAST;
    public static final int RC_SEND_LAST_WITH_IMMEDIATE = TRANSPORT_RC | SEND_LAST_WITH_IMMEDIATE;
    public static final int RC_SEND_ONLY = TRANSPORT_RC | SEND_ONLY;
    public static final int RC_SEND_ONLY_WITH_IMMEDIATE = TRANSPORT_RC | SEND_ONLY_WITH_IMMEDIATE;
    public static final int RC_RDMA_WRITE_FIRST = TRANSPORT_RC | RDMA_WRITE_FIRST;
    public static final int RC_RDMA_WRITE_MIDDLE = TRANSPORT_RC | RDMA_WRITE_MIDDLE;
    public static final int RC_RDMA_WRITE_LAST = TRANSPORT_RC | RDMA_WRITE_LAST;
    public static final int RC_RDMA_WRITE_LAST_WITH_IMMEDIATE = TRANSPORT_RC | RDMA_WRITE_LAST_WITH_IMMEDIATE;
    public static final int RC_RDMA_WRITE_ONLY = TRANSPORT_RC | RDMA_WRITE_ONLY;
    public static final int RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE = TRANSPORT_RC | RDMA_WRITE_ONLY_WITH_IMMEDIATE;
    public static final int RC_RDMA_READ_REQUEST = TRANSPORT_RC | RDMA_READ_REQUEST;
    public static final int RC_RDMA_READ_RESPONSE_FIRST = TRANSPORT_RC | RDMA_READ_RESPONSE_FIRST;
    public static final int RC_RDMA_READ_RESPONSE_MIDDLE = TRANSPORT_RC | RDMA_READ_RESPONSE_MIDDLE;
    public static final int RC_RDMA_READ_RESPONSE_LAST = TRANSPORT_RC | RDMA_READ_RESPONSE_LAST;
    public static final int RC_RDMA_READ_RESPONSE_ONLY = TRANSPORT_RC | RDMA_READ_RESPONSE_ONLY;
    public static final int RC_ACKNOWLEDGE = TRANSPORT_RC | ACKNOWLEDGE;
    public static final int RC_ATOMIC_ACKNOWLEDGE = TRANSPORT_RC | ATOMIC_ACKNOWLEDGE;
    public static final int RC_COMPARE_SWAP = TRANSPORT_RC | COMPARE_SWAP;
    public static final int RC_FETCH_ADD = TRANSPORT_RC | FETCH_ADD;
    public static final int RC_SEND_LAST_WITH_INVALIDATE = TRANSPORT_RC | SEND_LAST_WITH_INVALIDATE;
    public static final int RC_SEND_ONLY_WITH_INVALIDATE = TRANSPORT_RC | SEND_ONLY_WITH_INVALIDATE;
    public static final int RC_FLUSH = TRANSPORT_RC | FLUSH;
    public static final int RC_ATOMIC_WRITE = TRANSPORT_RC | ATOMIC_WRITE;
    public static final int UD_SEND_ONLY = TRANSPORT_UD | SEND_ONLY;
    public static final int UD_SEND_ONLY_WITH_IMMEDIATE = TRANSPORT_UD | SEND_ONLY_WITH_IMMEDIATE;
    public static final int CNP = 0x81;

    // ---- extension headers: index into OFFSET and bit in the header mask
    public static final int DETH = 0;
    public static final int RETH = 1;
    public static final int ATOMIC_ETH = 2;
    public static final int AETH = 3;
    public static final int ATOMIC_ACK_ETH = 4;
    public static final int IMMDT = 5;
    public static final int IETH = 6;
    public static final int CNP_RESERVED = 7;
    /** Added last, keeping the indices above; on the wire it goes between DETH and RETH ({@link #WIRE_ORDER}). */
    public static final int FETH = 8;
    public static final int HEADER_COUNT = 9;

    /** Length of each extension header, by header index. */
    private static final int[] HEADER_LENGTH = {
        DethFlyweight.LENGTH, RethFlyweight.LENGTH, AtomicEthFlyweight.LENGTH, AethFlyweight.LENGTH,
        AtomicAckEthFlyweight.LENGTH, ImmDtFlyweight.LENGTH, IethFlyweight.LENGTH, CnpFlyweight.RESERVED_LENGTH,
        FethFlyweight.LENGTH };
    private static final String[] HEADER_NAME = {
        "DETH", "RETH", "ATOMICETH", "AETH", "ATOMICACKETH", "IMMDT", "IETH", "CNP_RESERVED", "FETH" };
    /** The header indices in the order the headers follow the BTH on the wire. */
    private static final int[] WIRE_ORDER = {
        DETH, FETH, RETH, ATOMIC_ETH, AETH, ATOMIC_ACK_ETH, IMMDT, IETH, CNP_RESERVED };

    // ---- flags describing the operation (bits above the header mask, bits 0 to HEADER_COUNT - 1)
    public static final int FLAG_PAYLOAD = 1 << 9;
    public static final int FLAG_REQUEST = 1 << 10;
    public static final int FLAG_RESPONSE = 1 << 11;
    public static final int FLAG_SEND = 1 << 12;
    public static final int FLAG_WRITE = 1 << 13;
    public static final int FLAG_READ = 1 << 14;
    public static final int FLAG_ATOMIC = 1 << 15;
    public static final int FLAG_FIRST = 1 << 16;
    public static final int FLAG_MIDDLE = 1 << 17;
    public static final int FLAG_LAST = 1 << 18;
    public static final int FLAG_ONLY = 1 << 19;
    public static final int FLAG_IMMEDIATE = 1 << 20;
    public static final int FLAG_INVALIDATE = 1 << 21;
    public static final int FLAG_ACK = 1 << 22;
    public static final int FLAG_CNP = 1 << 23;
    /** IBTA 1.5 FLUSH: the responder makes earlier writes visible or persistent. */
    public static final int FLAG_FLUSH = 1 << 24;
    /** IBTA 1.5 ATOMIC WRITE: an 8-byte write placed at once, after every earlier request. */
    public static final int FLAG_ATOMIC_WRITE = 1 << 25;

    private static final int ABSENT = -1;
    private static final int[] MASK = new int[256];
    private static final int[] HEADER_BYTES = new int[256];
    private static final int[][] OFFSET = new int[256][HEADER_COUNT];
    private static final String[] NAME = new String[256];

    static
    {
        for (int i = 0; i < 256; i++)
        {
            MASK[i] = 0;
            HEADER_BYTES[i] = ABSENT;
            java.util.Arrays.fill(OFFSET[i], ABSENT);
            NAME[i] = String.format("UNKNOWN_0x%02x", i);
        }

        for (final int transport : new int[]{ TRANSPORT_RC, TRANSPORT_UC })
        {
            final String prefix = transport == TRANSPORT_RC ? "RC_" : "UC_";
            define(transport | SEND_FIRST, prefix + "SEND_FIRST", FLAG_REQUEST | FLAG_SEND | FLAG_FIRST | FLAG_PAYLOAD);
            define(transport | SEND_MIDDLE, prefix + "SEND_MIDDLE", FLAG_REQUEST | FLAG_SEND | FLAG_MIDDLE | FLAG_PAYLOAD);
            define(transport | SEND_LAST, prefix + "SEND_LAST", FLAG_REQUEST | FLAG_SEND | FLAG_LAST | FLAG_PAYLOAD);
            define(transport | SEND_LAST_WITH_IMMEDIATE, prefix + "SEND_LAST_WITH_IMMEDIATE",
                FLAG_REQUEST | FLAG_SEND | FLAG_LAST | FLAG_PAYLOAD | FLAG_IMMEDIATE, IMMDT);
            define(transport | SEND_ONLY, prefix + "SEND_ONLY", FLAG_REQUEST | FLAG_SEND | FLAG_ONLY | FLAG_PAYLOAD);
            define(transport | SEND_ONLY_WITH_IMMEDIATE, prefix + "SEND_ONLY_WITH_IMMEDIATE",
                FLAG_REQUEST | FLAG_SEND | FLAG_ONLY | FLAG_PAYLOAD | FLAG_IMMEDIATE, IMMDT);
            define(transport | RDMA_WRITE_FIRST, prefix + "RDMA_WRITE_FIRST",
                FLAG_REQUEST | FLAG_WRITE | FLAG_FIRST | FLAG_PAYLOAD, RETH);
            define(transport | RDMA_WRITE_MIDDLE, prefix + "RDMA_WRITE_MIDDLE",
                FLAG_REQUEST | FLAG_WRITE | FLAG_MIDDLE | FLAG_PAYLOAD);
            define(transport | RDMA_WRITE_LAST, prefix + "RDMA_WRITE_LAST",
                FLAG_REQUEST | FLAG_WRITE | FLAG_LAST | FLAG_PAYLOAD);
            define(transport | RDMA_WRITE_LAST_WITH_IMMEDIATE, prefix + "RDMA_WRITE_LAST_WITH_IMMEDIATE",
                FLAG_REQUEST | FLAG_WRITE | FLAG_LAST | FLAG_PAYLOAD | FLAG_IMMEDIATE, IMMDT);
            define(transport | RDMA_WRITE_ONLY, prefix + "RDMA_WRITE_ONLY",
                FLAG_REQUEST | FLAG_WRITE | FLAG_ONLY | FLAG_PAYLOAD, RETH);
            define(transport | RDMA_WRITE_ONLY_WITH_IMMEDIATE, prefix + "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
                FLAG_REQUEST | FLAG_WRITE | FLAG_ONLY | FLAG_PAYLOAD | FLAG_IMMEDIATE, RETH, IMMDT);
        }

        define(RC_RDMA_READ_REQUEST, "RC_RDMA_READ_REQUEST", FLAG_REQUEST | FLAG_READ | FLAG_ONLY, RETH);
        define(RC_RDMA_READ_RESPONSE_FIRST, "RC_RDMA_READ_RESPONSE_FIRST",
            FLAG_RESPONSE | FLAG_READ | FLAG_FIRST | FLAG_PAYLOAD, AETH);
        define(RC_RDMA_READ_RESPONSE_MIDDLE, "RC_RDMA_READ_RESPONSE_MIDDLE",
            FLAG_RESPONSE | FLAG_READ | FLAG_MIDDLE | FLAG_PAYLOAD);
        define(RC_RDMA_READ_RESPONSE_LAST, "RC_RDMA_READ_RESPONSE_LAST",
            FLAG_RESPONSE | FLAG_READ | FLAG_LAST | FLAG_PAYLOAD, AETH);
        define(RC_RDMA_READ_RESPONSE_ONLY, "RC_RDMA_READ_RESPONSE_ONLY",
            FLAG_RESPONSE | FLAG_READ | FLAG_ONLY | FLAG_PAYLOAD, AETH);
        define(RC_ACKNOWLEDGE, "RC_ACKNOWLEDGE", FLAG_RESPONSE | FLAG_ACK | FLAG_ONLY, AETH);
        define(RC_ATOMIC_ACKNOWLEDGE, "RC_ATOMIC_ACKNOWLEDGE",
            FLAG_RESPONSE | FLAG_ACK | FLAG_ATOMIC | FLAG_ONLY, AETH, ATOMIC_ACK_ETH);
        define(RC_COMPARE_SWAP, "RC_COMPARE_SWAP", FLAG_REQUEST | FLAG_ATOMIC | FLAG_ONLY, ATOMIC_ETH);
        define(RC_FETCH_ADD, "RC_FETCH_ADD", FLAG_REQUEST | FLAG_ATOMIC | FLAG_ONLY, ATOMIC_ETH);
        define(RC_SEND_LAST_WITH_INVALIDATE, "RC_SEND_LAST_WITH_INVALIDATE",
            FLAG_REQUEST | FLAG_SEND | FLAG_LAST | FLAG_PAYLOAD | FLAG_INVALIDATE, IETH);
        define(RC_SEND_ONLY_WITH_INVALIDATE, "RC_SEND_ONLY_WITH_INVALIDATE",
            FLAG_REQUEST | FLAG_SEND | FLAG_ONLY | FLAG_PAYLOAD | FLAG_INVALIDATE, IETH);
        define(RC_FLUSH, "RC_FLUSH", FLAG_REQUEST | FLAG_FLUSH | FLAG_ONLY, FETH, RETH);
        define(RC_ATOMIC_WRITE, "RC_ATOMIC_WRITE", FLAG_REQUEST | FLAG_ATOMIC_WRITE | FLAG_ONLY | FLAG_PAYLOAD, RETH);
        define(UD_SEND_ONLY, "UD_SEND_ONLY", FLAG_REQUEST | FLAG_SEND | FLAG_ONLY | FLAG_PAYLOAD, DETH);
        define(UD_SEND_ONLY_WITH_IMMEDIATE, "UD_SEND_ONLY_WITH_IMMEDIATE",
            FLAG_REQUEST | FLAG_SEND | FLAG_ONLY | FLAG_PAYLOAD | FLAG_IMMEDIATE, DETH, IMMDT);
        define(CNP, "CNP", FLAG_CNP, CNP_RESERVED);
    }

    private Opcode()
    {
    }

    private static void define(final int opcode, final String name, final int flags, final int... headers)
    {
        int mask = flags;
        for (final int header : headers)
        {
            mask |= 1 << header;
        }

        // Offsets follow the fixed wire order, whatever order the headers were listed in.
        int offset = BthFlyweight.LENGTH;
        for (final int header : WIRE_ORDER)
        {
            if ((mask & (1 << header)) != 0)
            {
                OFFSET[opcode][header] = offset;
                offset += HEADER_LENGTH[header];
            }
        }

        MASK[opcode] = mask;
        HEADER_BYTES[opcode] = offset;
        NAME[opcode] = name;
    }

    /** Whether RoCEv2 defines this opcode for RC, UC, UD or as the CNP (RD and reserved ones are not). */
    public static boolean isValid(final int opcode)
    {
        return HEADER_BYTES[opcode & 0xFF] != ABSENT;
    }

    /** Header mask and operation flags ({@code FLAG_*} and {@code 1 << header}) of a valid opcode, 0 otherwise. */
    public static int mask(final int opcode)
    {
        return MASK[opcode & 0xFF];
    }

    public static boolean has(final int opcode, final int flag)
    {
        return (MASK[opcode & 0xFF] & flag) != 0;
    }

    public static boolean hasHeader(final int opcode, final int header)
    {
        return (MASK[opcode & 0xFF] & (1 << header)) != 0;
    }

    /** BTH plus extension headers, in bytes; -1 for an invalid opcode. */
    public static int headerLength(final int opcode)
    {
        return HEADER_BYTES[opcode & 0xFF];
    }

    /** Offset of an extension header from the start of the BTH; -1 when the opcode does not carry it. */
    public static int offset(final int opcode, final int header)
    {
        return OFFSET[opcode & 0xFF][header];
    }

    public static String name(final int opcode)
    {
        return NAME[opcode & 0xFF];
    }

    public static int transport(final int opcode)
    {
        return opcode & 0xE0;
    }

    public static int operation(final int opcode)
    {
        return opcode & 0x1F;
    }

    public static int headerLengthOf(final int header)
    {
        return HEADER_LENGTH[header];
    }

    /** The header index at position {@code position} (0 to {@link #HEADER_COUNT} - 1) of the wire order. */
    public static int headerInWireOrder(final int position)
    {
        return WIRE_ORDER[position];
    }

    public static String headerName(final int header)
    {
        return HEADER_NAME[header];
    }

    /** The opcode whose {@link #name(int)} is {@code name}, or -1. Control path only. */
    public static int byName(final String name)
    {
        for (int i = 0; i < 256; i++)
        {
            if (isValid(i) && NAME[i].equals(name))
            {
                return i;
            }
        }
        return -1;
    }
}
