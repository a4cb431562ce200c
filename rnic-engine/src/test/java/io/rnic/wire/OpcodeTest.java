package io.rnic.wire;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpcodeTest
{
    @Test
    void shouldDefineExactlyTheRoceV2Opcodes()
    {
        for (int op = 0; op < 256; op++)
        {
            final int transport = op & 0xE0;
            final int operation = op & 0x1F;
            final boolean expected;
            if (op == Opcode.CNP)
            {
                expected = true;
            }
            else if (transport == Opcode.TRANSPORT_RC)
            {
                // IBTA 1.5 adds FLUSH (0x1C) and ATOMIC WRITE (0x1D), RC only, as rxe does from kernel 6.2
                expected = operation <= 0x14 || operation == 0x16 || operation == 0x17 || operation == 0x1C ||
                    operation == 0x1D;
            }
            else if (transport == Opcode.TRANSPORT_UC)
            {
                expected = operation <= 0x0B;
            }
            else if (transport == Opcode.TRANSPORT_UD)
            {
                expected = operation == 0x04 || operation == 0x05;
            }
            else
            {
                expected = false; // RD, reserved, vendor
            }
            assertEquals(expected, Opcode.isValid(op), String.format("opcode 0x%02x", op));
        }
    }

    @Test
    void shouldGiveHeaderLengthAsBthPlusExtensionHeadersInWireOrder()
    {
        for (final int op : Frames.allOpcodes())
        {
            int offset = BthFlyweight.LENGTH;
            for (int position = 0; position < Opcode.HEADER_COUNT; position++)
            {
                final int header = Opcode.headerInWireOrder(position);
                if (Opcode.hasHeader(op, header))
                {
                    assertEquals(offset, Opcode.offset(op, header), Opcode.name(op) + " " + Opcode.headerName(header));
                    offset += Opcode.headerLengthOf(header);
                }
                else
                {
                    assertEquals(-1, Opcode.offset(op, header));
                }
            }
            assertEquals(offset, Opcode.headerLength(op), Opcode.name(op));
        }
    }

    @Test
    void shouldPlaceHeadersAsTheSpecificationDoes()
    {
        assertEquals(12, Opcode.offset(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.RETH));
        assertEquals(28, Opcode.offset(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE, Opcode.IMMDT));
        assertEquals(32, Opcode.headerLength(Opcode.RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE));
        assertEquals(12, Opcode.offset(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Opcode.DETH));
        assertEquals(20, Opcode.offset(Opcode.UD_SEND_ONLY_WITH_IMMEDIATE, Opcode.IMMDT));
        assertEquals(16, Opcode.offset(Opcode.RC_ATOMIC_ACKNOWLEDGE, Opcode.ATOMIC_ACK_ETH));
        assertEquals(24, Opcode.headerLength(Opcode.RC_ATOMIC_ACKNOWLEDGE));
        assertEquals(40, Opcode.headerLength(Opcode.RC_COMPARE_SWAP));
        assertEquals(28, Opcode.headerLength(Opcode.CNP));
        assertEquals(0x2A, Opcode.byName("UC_RDMA_WRITE_ONLY"));
        assertEquals(0x65, Opcode.byName("UD_SEND_ONLY_WITH_IMMEDIATE"));
    }

    @Test
    void shouldLayOutFlushAndAtomicWriteAsRxeDoes()
    {
        // rxe_opcode.c: IB_OPCODE_RC_FLUSH has FETH at RXE_BTH_BYTES, RETH at RXE_BTH_BYTES + RXE_FETH_BYTES, length
        // BTH + FETH + RETH; IB_OPCODE_RC_ATOMIC_WRITE has RETH at RXE_BTH_BYTES, length BTH + RETH, and a payload.
        assertEquals(0x1C, Opcode.RC_FLUSH);
        assertEquals(0x1D, Opcode.RC_ATOMIC_WRITE);
        assertEquals(12, Opcode.offset(Opcode.RC_FLUSH, Opcode.FETH));
        assertEquals(16, Opcode.offset(Opcode.RC_FLUSH, Opcode.RETH));
        assertEquals(32, Opcode.headerLength(Opcode.RC_FLUSH));
        assertFalse(Opcode.has(Opcode.RC_FLUSH, Opcode.FLAG_PAYLOAD));
        assertEquals(12, Opcode.offset(Opcode.RC_ATOMIC_WRITE, Opcode.RETH));
        assertEquals(28, Opcode.headerLength(Opcode.RC_ATOMIC_WRITE));
        assertTrue(Opcode.has(Opcode.RC_ATOMIC_WRITE, Opcode.FLAG_PAYLOAD));
        assertFalse(Opcode.isValid(Opcode.TRANSPORT_UC | Opcode.FLUSH), "RC only");
        assertFalse(Opcode.isValid(Opcode.TRANSPORT_UC | Opcode.ATOMIC_WRITE), "RC only");
        assertEquals("RC_FLUSH", Opcode.name(0x1C));
        assertEquals("RC_ATOMIC_WRITE", Opcode.name(0x1D));
        assertTrue(Opcode.FLAG_PAYLOAD >= 1 << Opcode.HEADER_COUNT, "the flags start above the header mask");
    }

    @Test
    void shouldMarkWhichOpcodesCarryPayload()
    {
        assertFalse(Opcode.has(Opcode.RC_RDMA_READ_REQUEST, Opcode.FLAG_PAYLOAD));
        assertFalse(Opcode.has(Opcode.RC_ACKNOWLEDGE, Opcode.FLAG_PAYLOAD));
        assertFalse(Opcode.has(Opcode.RC_COMPARE_SWAP, Opcode.FLAG_PAYLOAD));
        assertFalse(Opcode.has(Opcode.CNP, Opcode.FLAG_PAYLOAD));
        assertTrue(Opcode.has(Opcode.RC_RDMA_READ_RESPONSE_MIDDLE, Opcode.FLAG_PAYLOAD));
        assertTrue(Opcode.has(Opcode.UD_SEND_ONLY, Opcode.FLAG_PAYLOAD));
    }
}
