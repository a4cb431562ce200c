package io.rnic.cm;

import io.rnic.pcap.PcapReader;
import io.rnic.testing.SharedFiles;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CM MADs of {@code rxe-peer/pcaps/rping.pcap} (rping between two Linux Soft-RoCE guests, 10.77.0.3 → 10.77.0.2
 * port 7174): each is decoded field by field (values as tshark dissects them, where it agrees with IBTA's layout),
 * then encoded again with our flyweights from those values, which must give the captured 256 bytes exactly.
 */
class CmMadTest
{
    /** Ethernet (14) + IPv4 (20) + UDP (8) + BTH (12) + DETH (8): where the MAD of a UD SEND starts. */
    private static final int MAD_OFFSET = 62;
    private static final long TID = 0x0000_0002_CB03_CEF0L;
    private static final int ACTIVE_COMM_ID = 0xF0CE_03CB;
    private static final int PASSIVE_COMM_ID = 0xDE8E_07CF;
    private static final List<byte[]> MADS = new ArrayList<>();

    @BeforeAll
    static void readCapture() throws IOException
    {
        final Path pcap = SharedFiles.sharedDir().resolve("rxe-peer/pcaps/rping.pcap");
        try (PcapReader reader = PcapReader.open(pcap))
        {
            while (reader.next())
            {
                // UD SEND only (0x64) to QP1
                if (reader.frameLength() == MAD_OFFSET + 256 + 4 && reader.frame().getByte(42) == 0x64 &&
                    reader.frame().getInt(46, java.nio.ByteOrder.BIG_ENDIAN) == 1)
                {
                    final byte[] mad = new byte[256];
                    reader.frame().getBytes(MAD_OFFSET, mad);
                    MADS.add(mad);
                }
            }
        }
        assertEquals(5, MADS.size(), "REQ, REP, RTU, DREQ, DREP");
    }

    @Test
    void shouldDecodeTheCapturedConnectRequestAndEncodeItByteForByte()
    {
        final CmReqFlyweight req = new CmReqFlyweight();
        req.wrapAt(new UnsafeBuffer(MADS.get(0)), 0);
        assertTrue(req.isCmSend());
        assertEquals(CmMadFlyweight.ATTR_REQ, req.attributeId());
        assertEquals(TID, req.transactionId());
        assertEquals(ACTIVE_COMM_ID, req.localCommId());
        assertEquals(CmReqFlyweight.tcpServiceId(7174), req.serviceId());
        assertEquals(7174, CmReqFlyweight.tcpPortOf(req.serviceId()));
        assertEquals(0x5054_00FF_FE77_0003L, req.localCaGuid());
        assertEquals(ConnectionManager.eui64(0x5254_0077_0003L), req.localCaGuid(), "rxe's GUID is the EUI-64");
        assertEquals(0, req.localQkey());
        assertEquals(0x2A, req.localQpn());
        assertEquals(1, req.responderResources());
        assertEquals(1, req.initiatorDepth());
        assertEquals(20, req.remoteCmResponseTimeout());
        assertEquals(0, req.transportServiceType());
        assertEquals(0x12CCD5, req.startingPsn());
        assertEquals(20, req.localCmResponseTimeout());
        assertEquals(7, req.retryCount());
        assertEquals(0xFFFF, req.partitionKey());
        assertEquals(3, req.pathMtu());
        assertEquals(7, req.rnrRetryCount());
        assertEquals(15, req.maxCmRetries());
        assertFalse(req.srq());
        assertEquals(0xFFFF, req.primaryLocalLid());
        assertEquals(0, req.primaryLocalGidHigh());
        assertEquals(0x0000_FFFF_0A4D_0003L, req.primaryLocalGidLow());
        assertEquals(0x0000_FFFF_0A4D_0002L, req.primaryRemoteGidLow());
        assertEquals(0x97171, req.primaryFlowLabel());
        assertEquals(0, req.primaryPacketRate());
        assertEquals(0, req.primaryTrafficClass());
        assertEquals(64, req.primaryHopLimit());
        assertEquals(0, req.primaryServiceLevel());
        assertEquals(0x13, req.primaryLocalAckTimeout());
        assertEquals(0, req.cmaVersion());
        assertEquals(4, req.cmaIpVersion());
        assertEquals(0xD135, req.cmaSourcePort());
        assertEquals(0x0A4D_0003, req.cmaSourceIpv4());
        assertEquals(0x0A4D_0002, req.cmaDestinationIpv4());

        final byte[] ours = new byte[256];
        final CmReqFlyweight out = new CmReqFlyweight();
        out.wrapAt(new UnsafeBuffer(ours), 0);
        out.initialise(CmMadFlyweight.ATTR_REQ, TID).localCommId(ACTIVE_COMM_ID);
        out.serviceId(CmReqFlyweight.tcpServiceId(7174)).localCaGuid(0x5054_00FF_FE77_0003L).localQpn(0x2A)
            .responderResources(1).initiatorDepth(1).remoteCmResponseTimeout(20).startingPsn(0x12CCD5)
            .localCmResponseTimeout(20).retryCount(7).partitionKey(0xFFFF).pathMtu(3).rnrRetryCount(7)
            .maxCmRetries(15).primaryLids(0xFFFF, 0xFFFF).primaryLocalGid(0, 0x0000_FFFF_0A4D_0003L)
            .primaryRemoteGid(0, 0x0000_FFFF_0A4D_0002L).primaryFlowLabelAndRate(0x97171, 0)
            .primaryTrafficClassAndHopLimit(0, 64).primaryLocalAckTimeout(0x13)
            .cmaHeaderIpv4(0xD135, 0x0A4D_0003, 0x0A4D_0002);
        assertArrayEquals(MADS.get(0), ours);
    }

    @Test
    void shouldDecodeTheCapturedConnectReplyAndEncodeItByteForByte()
    {
        final CmRepFlyweight rep = new CmRepFlyweight();
        rep.wrapAt(new UnsafeBuffer(MADS.get(1)), 0);
        assertTrue(rep.isCmSend());
        assertEquals(CmMadFlyweight.ATTR_REP, rep.attributeId());
        assertEquals(TID, rep.transactionId());
        assertEquals(PASSIVE_COMM_ID, rep.localCommId());
        assertEquals(ACTIVE_COMM_ID, rep.remoteCommId());
        assertEquals(0, rep.localQkey());
        assertEquals(0x2A, rep.localQpn());
        assertEquals(0x6A6CF1, rep.startingPsn());
        assertEquals(1, rep.responderResources());
        assertEquals(1, rep.initiatorDepth());
        assertEquals(15, rep.targetAckDelay());
        assertEquals(7, rep.rnrRetryCount());
        assertEquals(0x5054_00FF_FE77_0002L, rep.localCaGuid());

        final byte[] ours = new byte[256];
        final CmRepFlyweight out = new CmRepFlyweight();
        out.wrapAt(new UnsafeBuffer(ours), 0);
        out.initialise(CmMadFlyweight.ATTR_REP, TID).localCommId(PASSIVE_COMM_ID).remoteCommId(ACTIVE_COMM_ID);
        out.localQpn(0x2A).startingPsn(0x6A6CF1).responderResources(1).initiatorDepth(1).targetAckDelay(15)
            .rnrRetryCount(7).localCaGuid(0x5054_00FF_FE77_0002L);
        assertArrayEquals(MADS.get(1), ours);
    }

    @Test
    void shouldDecodeTheCapturedRtuDreqAndDrepAndEncodeThemByteForByte()
    {
        final CmMadFlyweight rtu = new CmMadFlyweight().wrapAt(new UnsafeBuffer(MADS.get(2)), 0);
        assertEquals(CmMadFlyweight.ATTR_RTU, rtu.attributeId());
        assertEquals(ACTIVE_COMM_ID, rtu.localCommId());
        assertEquals(PASSIVE_COMM_ID, rtu.remoteCommId());
        final byte[] ours = new byte[256];
        new CmMadFlyweight().wrapAt(new UnsafeBuffer(ours), 0).initialise(CmMadFlyweight.ATTR_RTU, TID)
            .localCommId(ACTIVE_COMM_ID).remoteCommId(PASSIVE_COMM_ID);
        assertArrayEquals(MADS.get(2), ours);

        final CmDreqFlyweight dreq = new CmDreqFlyweight();
        dreq.wrapAt(new UnsafeBuffer(MADS.get(3)), 0);
        assertEquals(CmMadFlyweight.ATTR_DREQ, dreq.attributeId());
        assertEquals(ACTIVE_COMM_ID, dreq.localCommId());
        assertEquals(PASSIVE_COMM_ID, dreq.remoteCommId());
        assertEquals(0x2A, dreq.remoteQpn());
        final CmDreqFlyweight outDreq = new CmDreqFlyweight();
        outDreq.wrapAt(new UnsafeBuffer(ours), 0);
        outDreq.initialise(CmMadFlyweight.ATTR_DREQ, TID).localCommId(ACTIVE_COMM_ID).remoteCommId(PASSIVE_COMM_ID);
        outDreq.remoteQpn(0x2A);
        assertArrayEquals(MADS.get(3), ours);

        final CmMadFlyweight drep = new CmMadFlyweight().wrapAt(new UnsafeBuffer(MADS.get(4)), 0);
        assertEquals(CmMadFlyweight.ATTR_DREP, drep.attributeId());
        assertEquals(PASSIVE_COMM_ID, drep.localCommId());
        assertEquals(ACTIVE_COMM_ID, drep.remoteCommId());
        new CmMadFlyweight().wrapAt(new UnsafeBuffer(ours), 0).initialise(CmMadFlyweight.ATTR_DREP, TID)
            .localCommId(PASSIVE_COMM_ID).remoteCommId(ACTIVE_COMM_ID);
        assertArrayEquals(MADS.get(4), ours);
    }

    @Test
    void shouldRoundTripARejectAndAnIpv6Header()
    {
        final byte[] bytes = new byte[256];
        final CmRejFlyweight rej = new CmRejFlyweight();
        rej.wrapAt(new UnsafeBuffer(bytes), 0);
        rej.initialise(CmMadFlyweight.ATTR_REJ, 7).localCommId(1).remoteCommId(2);
        rej.messageRejected(CmRejFlyweight.MESSAGE_REQ).reason(CmRejFlyweight.REASON_INVALID_SERVICE_ID);
        assertEquals(0x00, bytes[32]);
        assertEquals(8, bytes[35]);
        assertEquals(CmRejFlyweight.REASON_INVALID_SERVICE_ID, rej.reason());
        rej.messageRejected(CmRejFlyweight.MESSAGE_OTHER);
        assertEquals((byte)0x80, bytes[32]);

        final CmReqFlyweight req = new CmReqFlyweight();
        req.wrapAt(new UnsafeBuffer(bytes), 0);
        req.cmaHeaderIpv6(4242, 0xFE80_0000_0000_0000L, 1, 0xFD00_0000_0000_0000L, 2);
        assertEquals(6, req.cmaIpVersion());
        assertEquals(0x60, bytes[CmReqFlyweight.CMA_HEADER_OFFSET + 1]);
        assertEquals(4242, req.cmaSourcePort());
        assertEquals(0xFE80_0000_0000_0000L, req.cmaSourceIpv6High());
        assertEquals(1, req.cmaSourceIpv6Low());
        assertEquals(0xFD00_0000_0000_0000L, req.cmaDestinationIpv6High());
        assertEquals(2, req.cmaDestinationIpv6Low());
        assertEquals(-1, CmReqFlyweight.tcpPortOf(0x0000_0000_0111_0000L | 5), "RDMA_PS_UDP is not ours");
    }

    /**
     * IBTA 12.6.6 and 12.6.7's bit positions: the MRA's message MRAed in the top two bits of byte 32 and its service
     * timeout in the top five of byte 33; the REJ's reject info length in the top seven bits of byte 33, its GUID at
     * 36 and its private data at 108.
     */
    @Test
    void shouldPlaceTheMraAndRejectInfoFieldsWhereIbtaDoes()
    {
        final byte[] bytes = new byte[256];
        final CmMraFlyweight mra = new CmMraFlyweight();
        mra.wrapAt(new UnsafeBuffer(bytes), 0);
        mra.initialise(CmMadFlyweight.ATTR_MRA, 9).localCommId(1).remoteCommId(2);
        mra.messageMraed(CmMraFlyweight.MESSAGE_REP).serviceTimeout(24);
        assertEquals(0x40, bytes[32]);
        assertEquals((byte)(24 << 3), bytes[33]);
        assertEquals(CmMraFlyweight.MESSAGE_REP, mra.messageMraed());
        assertEquals(24, mra.serviceTimeout());

        final byte[] rejBytes = new byte[256];
        final CmRejFlyweight rej = new CmRejFlyweight();
        rej.wrapAt(new UnsafeBuffer(rejBytes), 0);
        rej.initialise(CmMadFlyweight.ATTR_REJ, 7).localCommId(1).remoteCommId(0);
        rej.reason(CmRejFlyweight.REASON_TIMEOUT).rejectInfoGuid(0x0011_2233_4455_6677L).privateData(new byte[]{ 5 });
        assertEquals(8 << 1, rejBytes[33]);
        assertEquals(0x00, rejBytes[36]);
        assertEquals(0x77, rejBytes[43]);
        assertEquals(5, rejBytes[108]);
        assertEquals(0x0011_2233_4455_6677L, rej.rejectInfoGuid());
        assertEquals(CmRejFlyweight.PRIVATE_DATA_LENGTH, rej.privateData().length);
    }
}
