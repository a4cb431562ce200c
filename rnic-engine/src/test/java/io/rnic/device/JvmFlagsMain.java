package io.rnic.device;

import io.rnic.RnicException;
import io.rnic.icrc.Icrc;
import io.rnic.sim.VirtualClock;
import io.rnic.testing.TestVectors;
import io.rnic.testing.TestVectors.Vector;
import io.rnic.transport.LocalPort;
import io.rnic.wire.DropReason;
import io.rnic.wire.InboundValidator;
import io.rnic.wire.RocePacket;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * What an embedder's program does first, in a JVM {@link JvmFlagsTest} starts with some flags left out: opens a
 * device, prints the refusal's message if there is one, else validates every shared vector (the ICRC of each
 * recomputed by the default calculator) and prints how many it accepted.
 */
public final class JvmFlagsMain
{
    private JvmFlagsMain()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            new RnicDevice(new LocalPort(0x02_00_00_00_00_01L), new VirtualClock(0), 1);
        }
        catch (final RnicException ex)
        {
            System.out.println(ex.getMessage());
            return;
        }
        final InboundValidator validator = new InboundValidator();
        final RocePacket packet = new RocePacket();
        int accepted = 0;
        int total = 0;
        for (final Vector vector : TestVectors.valid())
        {
            total++;
            final DropReason reason = validator.validate(
                new UnsafeBuffer(vector.frame().clone()), 0, vector.frame().length, packet);
            if (reason == DropReason.NONE)
            {
                accepted++;
            }
            else
            {
                System.out.println(vector.name() + ": " + reason);
            }
        }
        int badIcrcs = 0;
        for (final Vector vector : TestVectors.invalid())
        {
            if (vector.caseName().equals("bad_icrc") && validator.validate(new UnsafeBuffer(vector.frame().clone()),
                0, vector.frame().length, packet) == DropReason.ICRC_MISMATCH)
            {
                badIcrcs++;
            }
        }
        System.out.println("vector API " + (Icrc.isVectorApiPresent() ? "present" : "absent") + ": accepted " +
            accepted + " of " + total + " vectors, " + badIcrcs + " bad ICRCs refused");
    }
}
