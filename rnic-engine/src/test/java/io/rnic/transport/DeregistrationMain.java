package io.rnic.transport;

import io.rnic.verbs.QpType;
import io.rnic.verbs.WrOpcode;

import java.util.ArrayList;
import java.util.List;

/**
 * The deregistration scenarios with the memory freed (each region's arena closed right after deregistration), run
 * by {@link DeregistrationTest} in a JVM of its own: an access to freed memory kills this JVM with SIGSEGV, which
 * the test sees as a non-zero exit with the crash report in the output, not as a lost test run. Prints one line per
 * scenario; exits 0 only when every scenario ended as ibverbs says it must.
 */
public final class DeregistrationMain
{
    private DeregistrationMain()
    {
    }

    public static void main(final String[] args) throws InterruptedException
    {
        final List<String> failures = new ArrayList<>();
        for (final QpType type : new QpType[]{ QpType.RC, QpType.UC })
        {
            report("responder " + type + " WRITE across deregistration + free",
                DeregistrationScenarios.problems(type, DeregistrationScenarios.writeAcrossDeregistration(type, true)),
                failures);
        }
        report("requester WRITE retransmitted from a freed region",
            DeregistrationScenarios.problems(DeregistrationScenarios.retransmitFromDeregistered(WrOpcode.RDMA_WRITE)),
            failures);
        report("requester SEND retransmitted from a freed region",
            DeregistrationScenarios.problems(DeregistrationScenarios.retransmitFromDeregistered(WrOpcode.SEND)),
            failures);
        report("responder SEND across deregistration + free of the receive buffer",
            DeregistrationScenarios.sendAcrossDeregistration(true), failures);
        report("completer READ responses into a freed region",
            DeregistrationScenarios.readResponseIntoDeregistered(true), failures);
        report("responder READ responses owed from a freed region",
            DeregistrationScenarios.queuedReadResponsesOfDeregistered(true), failures);
        report("engine thread streaming WRITEs while another thread deregisters and frees",
            DeregistrationScenarios.writeStreamAcrossDeregistrationAndFree(), failures);
        System.out.flush();
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    private static void report(final String scenario, final List<String> problems, final List<String> failures)
    {
        System.out.println((problems.isEmpty() ? "ok   " : "FAIL ") + scenario + (problems.isEmpty() ? "" : ": " + problems));
        if (!problems.isEmpty())
        {
            failures.add(scenario);
        }
    }
}
