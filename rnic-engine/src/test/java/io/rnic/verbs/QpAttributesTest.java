package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class QpAttributesTest
{
    @Test
    void shouldAcceptWhatIbvRcPingpongSets()
    {
        final QpAttributes attr = new QpAttributes();
        attr.pathMtu = PathMtu.MTU_1024;
        attr.destQpNumber = 0x11;
        attr.rqPsn = 0xABCDEF;
        attr.maxDestReadAtomic = 1;
        attr.minRnrTimer = 12;
        attr.addressVector.destinationIpv4(0x0A4D_0002).hopLimit(1).sourceGidIndex(1);
        assertNull(attr.validate(QpAttrMask.STATE | QpAttrMask.AV | QpAttrMask.PATH_MTU | QpAttrMask.DEST_QPN |
            QpAttrMask.RQ_PSN | QpAttrMask.MAX_DEST_RD_ATOMIC | QpAttrMask.MIN_RNR_TIMER));
        attr.timeout = 14;
        attr.retryCount = 7;
        attr.rnrRetry = 7;
        attr.sqPsn = 0x123456;
        attr.maxReadAtomic = 1;
        assertNull(attr.validate(QpAttrMask.STATE | QpAttrMask.TIMEOUT | QpAttrMask.RETRY_CNT | QpAttrMask.RNR_RETRY |
            QpAttrMask.SQ_PSN | QpAttrMask.MAX_QP_RD_ATOMIC));
        assertEquals(true, attr.addressVector.isIpv4());
    }

    @Test
    void shouldNameTheFieldOutOfRange()
    {
        final QpAttributes attr = new QpAttributes();
        attr.rqPsn = 1 << 24;
        assertEquals("RQ PSN 0x1000000 is wider than 24 bits", attr.validate(QpAttrMask.RQ_PSN));
        attr.retryCount = 8;
        assertEquals("retry count 8 out of range 0..7", attr.validate(QpAttrMask.RETRY_CNT));
        attr.timeout = 32;
        assertEquals("timeout 32 out of range 0..31 (4.096 us x 2^timeout, 0 = infinite)", attr.validate(QpAttrMask.TIMEOUT));
        attr.destQpNumber = 0;
        assertEquals("destination QPN 0 out of range 1..0xffffff", attr.validate(QpAttrMask.DEST_QPN));
        attr.maxReadAtomic = 17;
        assertEquals("max_rd_atomic 17 out of range 0..16", attr.validate(QpAttrMask.MAX_QP_RD_ATOMIC));
        assertEquals("address vector: destination GID is :: (unset)", attr.validate(QpAttrMask.AV));
        attr.addressVector.destinationIpv4(1).serviceLevel(9);
        assertEquals("address vector: service level 9 out of range 0..7 (it is the 802.1Q priority on RoCE)",
            attr.validate(QpAttrMask.AV));
        assertEquals("alternate paths (APM) are not supported on this device", attr.validate(QpAttrMask.ALT_PATH));
    }

    @Test
    void shouldFitTheIbMtuToTheEthernetMtu()
    {
        assertEquals(PathMtu.MTU_1024, PathMtu.forEthernetMtu(1500));
        assertEquals(PathMtu.MTU_4096, PathMtu.forEthernetMtu(9000));
        assertEquals(PathMtu.MTU_2048, PathMtu.forEthernetMtu(4000));
        assertEquals(PathMtu.MTU_4096, PathMtu.ofBytes(4096));
        assertNull(PathMtu.ofBytes(1500));
    }
}
