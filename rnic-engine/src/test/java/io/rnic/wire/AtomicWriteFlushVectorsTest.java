package io.rnic.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Frames of the IBTA 1.5 operations, built by us and checked field by field against what rxe puts on the wire
 * (kernel 6.2 on; our rxe peer, Debian's 6.1, predates them, so there is no capture of rxe to compare with: the
 * layout below is read from rxe's sources). rxe_opcode.c: {@code IB_OPCODE_RC_FLUSH} (0x1C) is BTH, FETH at byte 12,
 * RETH at byte 16, 32 bytes of headers and no payload; {@code IB_OPCODE_RC_ATOMIC_WRITE} (0x1D) is BTH, RETH at byte
 * 12 and 8 bytes of payload. rxe_hdr.h's {@code feth_init}: selectivity level in bits 5..4, placement type in bits
 * 3..0 of a big-endian 32-bit word. rxe_req.c: the RETH of a FLUSH carries the FLUSH's R_Key, address and length;
 * every last packet asks for an ACK; a FLUSH has SE clear. rxe_resp.c's {@code send_read_response_ack}: both are
 * answered with an RDMA READ RESPONSE ONLY with no payload, AETH syndrome {@code AETH_ACK_UNLIMITED} (0x1F) and the
 * MSN, at the request's PSN. The frames are kept here as hex, so that a change in how we build them shows.
 */
class AtomicWriteFlushVectorsTest
{
    private static final long MAC_A = 0x02_00_00_00_0A_01L;
    private static final long MAC_B = 0x02_00_00_00_0B_02L;
    private static final int IP_A = 0x0A00_0001;
    private static final int IP_B = 0x0A00_0002;

    static FrameSpec base(final int opcode, final int psn)
    {
        return new FrameSpec().ethernet(MAC_B, MAC_A).ipv4(IP_A, IP_B).udpSourcePort(0xC123)
            .bth(opcode, 0x000123, psn);
    }

    static byte[] build(final FrameSpec spec, final byte[] payload)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[PacketBuilder.frameLength(spec, payload.length)]);
        final int length = new PacketBuilder().build(buffer, 0, spec, new UnsafeBuffer(payload), 0, payload.length);
        final byte[] frame = new byte[length];
        buffer.getBytes(0, frame);
        return frame;
    }

    static byte[] atomicWrite()
    {
        return build(base(Opcode.RC_ATOMIC_WRITE, 0x00ABCD).ackRequest(true)
            .reth(0x0000_7F00_1234_5678L, 0x0000_1A2BL, 8),
            new byte[]{ 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, (byte)0x88 });
    }

    static byte[] flush()
    {
        return build(base(Opcode.RC_FLUSH, 0x00ABCE).ackRequest(true)
            .feth(FethFlyweight.PLACEMENT_GLOBAL, FethFlyweight.SELECTIVITY_MR)
            .reth(0x0000_7F00_1234_0000L, 0x0000_1A2BL, 0x1000), new byte[0]);
    }

    static byte[] emptyReadResponse()
    {
        return build(base(Opcode.RC_RDMA_READ_RESPONSE_ONLY, 0x00ABCD).aeth(0x1F, 0x000007), new byte[0]);
    }

    private static final String ATOMIC_WRITE_HEX =
        "020000000b02020000000a0108004500004400004000401126a70a0000010a000002c12312b7003000001d00ffff000001238000abcd" +
        "00007f001234567800001a2b0000000811223344556677880003731c";
    private static final String FLUSH_HEX =
        "020000000b02020000000a0108004500004000004000401126ab0a0000010a000002c12312b7002c00001c00ffff000001238000abce" +
        "0000001100007f001234000000001a2b0000100071d0cb52";
    private static final String EMPTY_READ_RESPONSE_HEX =
        "020000000b02020000000a0108004500003000004000401126bb0a0000010a000002c12312b7001c00001000ffff000001230000abcd" +
        "1f0000079c262b0f";
    /** Ethernet (14) + IPv4 (20) + UDP (8). */
    private static final int BTH = 42;

    private static int u8(final byte[] frame, final int offset)
    {
        return frame[offset] & 0xFF;
    }

    private static long be(final byte[] frame, final int offset, final int bytes)
    {
        long value = 0;
        for (int i = 0; i < bytes; i++)
        {
            value = value << 8 | u8(frame, offset + i);
        }
        return value;
    }

    private static Map<String, Object> acceptAndDecode(final byte[] frame)
    {
        final RocePacket packet = new RocePacket();
        final UnsafeBuffer buffer = new UnsafeBuffer(frame);
        assertEquals(DropReason.NONE, new InboundValidator().validate(buffer, 0, frame.length, packet));
        return new FrameFields().decode(new UnsafeBuffer(frame), 0, frame.length);
    }

    @Test
    void shouldBuildAtomicWriteAsRxeLaysItOut()
    {
        final byte[] frame = atomicWrite();
        assertEquals(ATOMIC_WRITE_HEX, HexFormat.of().formatHex(frame));
        assertEquals(0x1D, u8(frame, BTH), "IB_OPCODE_RC_ATOMIC_WRITE");
        assertEquals(0x00, u8(frame, BTH + 1), "SE 0, M 0, pad 0 (8 bytes need none), TVer 0");
        assertEquals(0xFFFF, be(frame, BTH + 2, 2), "P_Key");
        assertEquals(0x80, u8(frame, BTH + 8) & 0x80, "AckReq on the last (only) packet");
        assertEquals(0x00ABCD, be(frame, BTH + 9, 3), "PSN");
        assertEquals(0x0000_7F00_1234_5678L, be(frame, BTH + 12, 8), "RETH VA at byte 12");
        assertEquals(0x1A2B, be(frame, BTH + 20, 4), "RETH R_Key");
        assertEquals(8, be(frame, BTH + 24, 4), "RETH DMA length: the 8 bytes");
        assertEquals(0x1122_3344_5566_7788L, be(frame, BTH + 28, 8), "the payload right after the RETH");
        assertEquals(BTH + 28 + 8 + 4, frame.length, "then only the ICRC");

        final Map<String, Object> f = acceptAndDecode(frame);
        assertEquals("RC_ATOMIC_WRITE", f.get("opcode_name"));
        assertEquals(List.of("RETH"), f.get("ext_headers"));
        assertEquals(8L, ((Number)f.get("reth_dmalen")).longValue());
        assertEquals(8, ((Number)f.get("payload_len")).intValue());
        assertEquals(true, f.get("icrc_ok"));
    }

    @Test
    void shouldBuildFlushAsRxeLaysItOut()
    {
        final byte[] frame = flush();
        assertEquals(FLUSH_HEX, HexFormat.of().formatHex(frame));
        assertEquals(0x1C, u8(frame, BTH), "IB_OPCODE_RC_FLUSH");
        assertEquals(0x00, u8(frame, BTH + 1), "SE 0 (rxe clears it for FLUSH), pad 0, TVer 0");
        assertEquals(0x80, u8(frame, BTH + 8) & 0x80, "AckReq");
        assertEquals(0x00ABCE, be(frame, BTH + 9, 3), "PSN");
        assertEquals(0x0000_0011L, be(frame, BTH + 12, 4), "FETH at byte 12: selectivity MR (1) << 4 | GLOBAL (1)");
        assertEquals(0x0000_7F00_1234_0000L, be(frame, BTH + 16, 8), "RETH VA at byte 16, after the FETH");
        assertEquals(0x1A2B, be(frame, BTH + 24, 4), "RETH R_Key");
        assertEquals(0x1000, be(frame, BTH + 28, 4), "RETH DMA length: the FLUSH's length");
        assertEquals(BTH + 32 + 4, frame.length, "no payload: the ICRC follows the RETH");

        final Map<String, Object> f = acceptAndDecode(frame);
        assertEquals("RC_FLUSH", f.get("opcode_name"));
        assertEquals(List.of("FETH", "RETH"), f.get("ext_headers"));
        assertEquals(FethFlyweight.PLACEMENT_GLOBAL, ((Number)f.get("feth_placement_type")).intValue());
        assertEquals(FethFlyweight.SELECTIVITY_MR, ((Number)f.get("feth_selectivity_level")).intValue());
        assertEquals(0, ((Number)f.get("payload_len")).intValue());
    }

    @Test
    void shouldBuildTheirAnswerAsAnEmptyReadResponseOnly()
    {
        final byte[] frame = emptyReadResponse();
        assertEquals(EMPTY_READ_RESPONSE_HEX, HexFormat.of().formatHex(frame));
        assertEquals(0x10, u8(frame, BTH), "IB_OPCODE_RC_RDMA_READ_RESPONSE_ONLY");
        assertEquals(0x00, u8(frame, BTH + 8) & 0x80, "no AckReq on a response");
        assertEquals(0x1F, u8(frame, BTH + 12), "AETH syndrome AETH_ACK_UNLIMITED");
        assertEquals(7, be(frame, BTH + 13, 3), "AETH MSN");
        assertEquals(BTH + 16 + 4, frame.length, "no payload");
        final Map<String, Object> f = acceptAndDecode(frame);
        assertEquals(0, ((Number)f.get("payload_len")).intValue());
    }

    @Test
    void shouldDropAFlushCarryingAPayload()
    {
        final byte[] frame = build(base(Opcode.RC_FLUSH, 1).feth(1, 0).reth(0, 1, 8), new byte[]{ 1, 2, 3, 4 });
        assertEquals(DropReason.UNEXPECTED_PAYLOAD,
            new InboundValidator().validate(new UnsafeBuffer(frame), 0, frame.length, new RocePacket()));
    }
}
