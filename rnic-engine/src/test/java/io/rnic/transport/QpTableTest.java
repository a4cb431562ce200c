package io.rnic.transport;

import io.rnic.verbs.QpType;
import io.rnic.verbs.WorkRequestRing;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class QpTableTest
{
    private static QpContext qp(final int qpn)
    {
        return new QpContext(qpn, QpType.RC, null, null, null,
            WorkRequestRing.allocate(WorkRequestRing.SEND, 1, 1, false),
            WorkRequestRing.allocate(WorkRequestRing.RECV, 1, 1, false), false);
    }

    private static int addNext(final QpTable table, final int shard, final int shards)
    {
        final int qpn = table.allocateQpn(shard, shards);
        table.add(qp(qpn));
        return qpn;
    }

    @Test
    void shouldStartEachTableAtARandomQpn()
    {
        final Set<Integer> firsts = new HashSet<>();
        for (int i = 0; i < 8; i++)
        {
            final int qpn = new QpTable().allocateQpn();
            assertTrue(qpn >= QpTable.FIRST_QPN && qpn <= QpTable.MAX_QPN, "QPN " + qpn);
            firsts.add(qpn);
        }
        assertTrue(firsts.size() > 1, "8 tables all started at " + firsts);
    }

    @Test
    void shouldAllocateRoundRobinFromTheStart()
    {
        final QpTable table = new QpTable(100, 1000);
        assertEquals(100, addNext(table, 0, 1));
        assertEquals(101, addNext(table, 0, 1));
        assertEquals(102, addNext(table, 0, 1));
    }

    @Test
    void shouldNotReuseAJustFreedQpn()
    {
        final QpTable table = new QpTable(100, 1000);
        final int first = addNext(table, 0, 1);
        table.remove(table.get(first));
        assertNull(table.get(first));
        assertEquals(first + 1, addNext(table, 0, 1));
        assertEquals(first + 2, addNext(table, 0, 1));
    }

    @Test
    void shouldSkipNumbersInUse()
    {
        final QpTable table = new QpTable(100, 1000);
        table.add(qp(100));
        table.add(qp(101));
        table.add(qp(103));
        assertEquals(102, addNext(table, 0, 1));
        assertEquals(104, addNext(table, 0, 1));
    }

    /** A held number is skipped, even after the cursor wraps back to it and no QP has it, until it is released. */
    @Test
    void shouldNotHandOutAHeldQpnUntilItIsReleased()
    {
        final QpTable table = new QpTable(999, 1000);
        final int held = addNext(table, 0, 1);
        table.hold(held);
        table.remove(table.get(held));
        assertTrue(table.isHeld(held));
        assertEquals(1000, addNext(table, 0, 1));
        for (int qpn = QpTable.FIRST_QPN; qpn < 999; qpn++)
        {
            table.add(qp(qpn)); // the space is full but for the held number
        }
        assertThrows(IllegalStateException.class, () -> table.allocateQpn(0, 1), "the held one is not free");
        table.release(held);
        assertFalse(table.isHeld(held));
        assertEquals(held, addNext(table, 0, 1));
    }

    @Test
    void shouldWrapAroundPastTheLastQpnToTheFirst()
    {
        final QpTable table = new QpTable(999, 1000);
        assertEquals(999, addNext(table, 0, 1));
        assertEquals(1000, addNext(table, 0, 1));
        assertEquals(QpTable.FIRST_QPN, addNext(table, 0, 1));
        assertEquals(QpTable.FIRST_QPN + 1, addNext(table, 0, 1));
    }

    @Test
    void shouldKeepTheShardRuleAndNeverGiveReservedNumbers()
    {
        for (int shard = 0; shard < 3; shard++)
        {
            final QpTable table = new QpTable(40, 50);
            final Set<Integer> seen = new HashSet<>();
            for (int i = 0; i < 40; i++) // more than a lap: the wrap must also keep the rule
            {
                final int qpn = table.allocateQpn(shard, 3);
                assertEquals(shard, qpn % 3, "QPN " + qpn + " for shard " + shard);
                assertTrue(qpn >= QpTable.FIRST_QPN && qpn <= 50, "QPN " + qpn);
                table.add(qp(qpn));
                seen.add(qpn);
                table.remove(table.get(qpn));
            }
            assertEquals(shard == 2 ? 17 : 16, seen.size(), "every number of shard " + shard + " once a lap");
        }
    }

    @Test
    void shouldFailClearlyWhenEveryQpnIsInUse()
    {
        final QpTable table = new QpTable(5, 10);
        for (int i = QpTable.FIRST_QPN; i <= 10; i++)
        {
            addNext(table, 0, 1);
        }
        assertEquals(9, table.size());
        final IllegalStateException ex = assertThrows(IllegalStateException.class, table::allocateQpn);
        assertTrue(ex.getMessage().contains("no QPN left"), ex.getMessage());

        table.remove(table.get(7));
        assertEquals(7, addNext(table, 0, 1));
    }

    @Test
    void shouldHoldTheGsiQpAndRefuseADuplicate()
    {
        final QpTable table = new QpTable(2, 10);
        final QpContext gsi = qp(QpTable.GSI_QPN);
        table.add(gsi);
        assertSame(gsi, table.get(QpTable.GSI_QPN));
        assertThrows(IllegalStateException.class, () -> table.add(qp(QpTable.GSI_QPN)));
        assertThrows(IllegalArgumentException.class, () -> table.add(qp(0)));
        assertThrows(IllegalArgumentException.class, () -> table.add(qp(11)));
        assertEquals(2, table.allocateQpn(), "GSI QPN 1 is not the allocator's");
    }

    @Test
    void shouldFindQpsAcrossPagesAndNothingOutOfRange()
    {
        final QpTable table = new QpTable();
        final QpContext low = qp(QpTable.FIRST_QPN);
        final QpContext high = qp(QpTable.MAX_QPN);
        final QpContext middle = qp(QpTable.PAGE_SIZE * 7 + 5);
        table.add(low);
        table.add(high);
        table.add(middle);
        assertSame(low, table.get(QpTable.FIRST_QPN));
        assertSame(high, table.get(QpTable.MAX_QPN));
        assertSame(middle, table.get(QpTable.PAGE_SIZE * 7 + 5));
        assertNull(table.get(QpTable.PAGE_SIZE * 7 + 6));
        assertNull(table.get(-1));
        assertNull(table.get(QpTable.MAX_QPN + 1));
        table.remove(middle);
        assertNull(table.get(QpTable.PAGE_SIZE * 7 + 5));
        table.remove(middle);
        assertEquals(2, table.size());
    }
}
