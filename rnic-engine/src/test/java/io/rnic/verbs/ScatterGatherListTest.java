package io.rnic.verbs;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ScatterGatherListTest
{
    @Test
    void shouldKeepTheTotalLengthAsEntriesAreAddedClearedAndCopied()
    {
        final ScatterGatherList sgl = new ScatterGatherList(ScatterGatherList.MAX_SGE);
        assertEquals(0, sgl.totalLength());
        for (int i = 0; i < ScatterGatherList.MAX_SGE; i++)
        {
            sgl.add(0x1000L * i, Integer.MAX_VALUE, i);
        }
        assertEquals((long)Integer.MAX_VALUE * ScatterGatherList.MAX_SGE, sgl.totalLength(), "beyond an int");

        final ScatterGatherList copy = new ScatterGatherList(ScatterGatherList.MAX_SGE);
        copy.add(1, 7, 1);
        copy.copyFrom(sgl);
        assertEquals(sgl.totalLength(), copy.totalLength());

        sgl.clear().add(0, 4096, 1).add(8192, 0, 1).add(16384, 100, 2);
        assertEquals(4196, sgl.totalLength());
        copy.copyFrom(sgl);
        assertEquals(4196, copy.totalLength());
        assertEquals(0, copy.clear().totalLength());
    }

    @Test
    void shouldNotCountARefusedEntry()
    {
        final ScatterGatherList sgl = new ScatterGatherList(1).add(0, 64, 1);
        assertThrows(VerbsException.class, () -> sgl.add(64, 64, 1));
        assertThrows(VerbsException.class, () -> new ScatterGatherList(2).add(0, -1, 1));
        assertEquals(64, sgl.totalLength());
    }
}
