package io.rnic.tools;

import io.rnic.verbs.MemoryRegionTable;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class QpLayoutTest
{
    /** -s's range ends where a QP's region would no longer fit: the largest message fits, the next one does not. */
    @Test
    void shouldFindTheLargestMessageWhoseRegionFits()
    {
        for (final long regionBytes : new long[]{ MemoryRegionTable.MAX_REGION_BYTES, 64L << 20, (64L << 20) + 4095 })
        {
            final long largest = QpLayout.largestMessage(regionBytes);
            assertTrue(new QpLayout((int)largest, false).regionBytes <= regionBytes, regionBytes + ": " + largest);
            assertTrue(new QpLayout((int)largest + 1, false).regionBytes > regionBytes, regionBytes + ": " + largest);
        }
    }
}
