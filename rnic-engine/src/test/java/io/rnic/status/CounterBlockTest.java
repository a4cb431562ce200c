package io.rnic.status;

import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class CounterBlockTest
{
    private static final String[] LABELS = { "first", "second", "third" };

    @Test
    void shouldDescribeEachCounterByTypeKeyAndLabelForAReaderOfTheBuffersAlone()
    {
        final CountersManager manager = CounterTypes.newManager(8);
        final CounterBlock block = new CounterBlock(manager, 77, 2, "engine 2: ", LABELS);
        block.add(1, 5);
        block.increment(2);

        // what another process would see: only the two buffers
        final CountersReader reader = new CountersReader(manager.metaDataBuffer(), manager.valuesBuffer());
        final long[] seen = new long[LABELS.length];
        reader.forEach((value, id, label) ->
        {
            assertEquals(77, reader.getCounterTypeId(id));
            final int offset = CountersReader.metaDataOffset(id) + CountersReader.KEY_OFFSET;
            final int index = reader.metaDataBuffer().getInt(offset + CounterTypes.KEY_INDEX_OFFSET);
            assertEquals(2, reader.metaDataBuffer().getInt(offset + CounterTypes.KEY_INSTANCE_OFFSET));
            assertEquals("engine 2: " + LABELS[index], label);
            seen[index] = value;
        });
        assertEquals(0, seen[0]);
        assertEquals(5, seen[1]);
        assertEquals(1, seen[2]);
        assertEquals(5, block.get(1));
    }

    @Test
    void shouldCarryTheValuesIntoAnotherManagerAndFreeTheOldRecords()
    {
        final CounterBlock block = CounterBlock.standalone(77, "port: ", LABELS);
        final CountersReader old = block.reader();
        block.add(0, 3);
        block.add(2, 4);
        final CountersManager endpoint = CounterTypes.newManager(8);
        block.moveTo(endpoint, 1, "port eth0: ");
        block.increment(0);

        assertEquals(4, block.get(0));
        assertEquals(0, block.get(1));
        assertEquals(4, block.get(2));
        assertEquals(endpoint, block.reader());
        assertEquals(4, endpoint.getCounterValue(0));
        assertEquals("port eth0: third", endpoint.getCounterLabel(2));
        for (int id = 0; id < LABELS.length; id++)
        {
            assertEquals(CountersReader.RECORD_RECLAIMED, old.getCounterState(id));
        }
    }

    @Test
    void shouldStayContiguousWhenAnEarlierRecordWasFreed()
    {
        final CountersManager manager = CounterTypes.newManager(8);
        final CounterBlock moved = new CounterBlock(manager, 1, 0, "", new String[]{ "moved" });
        new CounterBlock(manager, 1, 1, "", new String[]{ "kept" });
        moved.moveTo(CounterTypes.newManager(1), 0, ""); // frees record 0, a hole before record 1

        final CounterBlock block = new CounterBlock(manager, 2, 0, "", LABELS); // would straddle the hole if reused
        block.add(1, 9);

        assertEquals(9, manager.getCounterValue(3));
        assertEquals("second", manager.getCounterLabel(3));
    }
}
