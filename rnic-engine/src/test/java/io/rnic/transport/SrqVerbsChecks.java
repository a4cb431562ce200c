package io.rnic.transport;

import io.rnic.verbs.Errno;
import io.rnic.verbs.RecvWorkRequest;
import io.rnic.verbs.SharedReceiveQueue;
import io.rnic.verbs.SrqAttrMask;
import io.rnic.verbs.SrqAttributes;
import io.rnic.verbs.VerbsException;
import org.junit.jupiter.api.function.Executable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The ibverbs rules every {@link SharedReceiveQueue} keeps, whoever implements it (an engine's, a driver client's):
 * one set of checks, so that embedded and through a driver are held to the same errno for the same call.
 */
public final class SrqVerbsChecks
{
    private SrqVerbsChecks()
    {
    }

    /** The call fails with a {@link VerbsException} of {@code errno}, its message starting with the errno's name. */
    public static void assertErrno(final int errno, final Executable call)
    {
        final VerbsException ex = assertThrows(VerbsException.class, call);
        assertEquals(errno, ex.errno(), ex.getMessage());
        assertTrue(ex.getMessage().startsWith(Errno.name(errno) + ": "), ex.getMessage());
    }

    /**
     * For an SRQ made with {@code maxWr(4).maxSge(2).srqLimit(1)}: query, a resize and a limit above the size refused
     * (EINVAL), the limit re-armed, more SGEs than {@code max_sge} refused, four receives posted and a fifth refused
     * (ENOMEM). The SRQ is left full.
     */
    public static void checkQueryModifyAndPost(final SharedReceiveQueue srq)
    {
        final SrqAttributes attributes = srq.query(new SrqAttributes());
        assertEquals(4, attributes.maxWr);
        assertEquals(2, attributes.maxSge);
        assertEquals(1, attributes.srqLimit);
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttributes().maxWr(8), SrqAttrMask.MAX_WR));
        assertErrno(Errno.EINVAL, () -> srq.modify(new SrqAttributes().srqLimit(5), SrqAttrMask.LIMIT));
        srq.modify(new SrqAttributes().srqLimit(3), SrqAttrMask.LIMIT);
        assertEquals(3, srq.query(new SrqAttributes()).srqLimit);

        final RecvWorkRequest recv = new RecvWorkRequest();
        recv.sgl.add(0x1000, 8, 1).add(0x2000, 8, 1).add(0x3000, 8, 1);
        assertEquals(Errno.EINVAL, srq.postRecv(recv), "more SGEs than max_sge");
        recv.sgl.clear().add(0x1000, 8, 1);
        for (int i = 0; i < 4; i++)
        {
            assertEquals(0, srq.postRecv(recv));
        }
        assertEquals(Errno.ENOMEM, srq.postRecv(recv), "a full SRQ");
    }
}
