package io.rnic.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class Ipv4FlyweightTest
{
    @Test
    void shouldComputeTheSameChecksumFromTheFieldValuesAsFromTheWrittenHeader()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[Ipv4Flyweight.LENGTH]);
        final Ipv4Flyweight ipv4 = new Ipv4Flyweight().wrapAt(buffer, 0);
        final SplittableRandom random = new SplittableRandom(791);
        for (int i = 0; i < 100_000; i++)
        {
            // values as callers pass them, including bits beyond each field's width (the stores drop them)
            final int dscp = random.nextInt(64);
            final int ecn = random.nextInt(4);
            final int totalLength = i < 4 ? new int[]{ 0, 0xFFFF, 20, 1 }[i] : random.nextInt(0x10000);
            final int identification = random.nextInt();
            final int flags = random.nextInt(0x10000);
            final int ttl = random.nextInt(256);
            final int source = i == 1 ? -1 : random.nextInt();
            final int destination = i == 1 ? -1 : random.nextInt();
            ipv4.versionAndIhl(4, 5).dscpEcn(dscp, ecn).totalLength(totalLength).identification(identification)
                .flagsAndFragmentOffset(flags).ttl(ttl).protocol(Ipv4Flyweight.PROTOCOL_UDP).source(source)
                .destination(destination).checksum(0x5A5A);
            final int fromValues = Ipv4Flyweight.checksumOf(Ipv4Flyweight.tosOf(dscp, ecn), totalLength, identification,
                flags, ttl, Ipv4Flyweight.PROTOCOL_UDP, source, destination);
            assertEquals(ipv4.computeChecksum(), fromValues, "header " + i);
            ipv4.checksum(fromValues);
            assertTrue(ipv4.isChecksumValid(), "header " + i);
        }
    }
}
