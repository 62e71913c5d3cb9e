package org.wharfmq.perf.workload;

import org.junit.jupiter.api.Test;
import org.wharfmq.perf.PerfMain;
import org.wharfmq.perf.options.Option;
import org.wharfmq.perf.options.TestClass;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * docs/benchmarks.md and docs/performance.md describe the harness as the code has it (issue 37: the workloads defined
 * in the repository, in the project's own words): every workload is defined in benchmarks.md and listed by
 * {@code wharf perf --help} and {@code wharf perf run --help}; every option the pages name is one of {@code perf run},
 * {@code perf report} or {@code perf footprint}, and every option their help lists is on a page; performance.md's
 * description of the driver names every driver option and test class; benchmarks.md numbers the results table's rows
 * as {@code wharf perf report --list} does; and "How to run it" gives the whole report's length as {@code --list}
 * estimates it. A workload, an option or a row added or renamed without the pages fails here, naming what is missing.
 */
class HarnessDocsTest {

    private static final Path ROOT = Path.of(System.getProperty("wharf.root", ".."));
    /** A bold lead at the start of a line, where benchmarks.md defines a workload: {@code **RR-2b: RR-2 over n queue pairs.**}. */
    private static final Pattern LEAD = Pattern.compile("(?m)^\\*\\*([^*]+)\\*\\*");
    /** A long option: {@code --sizes}. */
    private static final Pattern LONG_OPTION = Pattern.compile("(?<![\\w-])--[a-z][a-z-]*");
    /** A line of benchmarks.md's table of rows: {@code | 5-9 | RR-4 2 KB ... |}. */
    private static final Pattern ROWS_LINE = Pattern.compile("(?m)^\\| (\\d+)(?:-(\\d+))? \\| ([^|]+) \\|");
    /** A flow's rows in the paragraph on the large flow rows: {@code F-PASS 31-34}. */
    private static final Pattern FLOW_ROWS = Pattern.compile("(F-[A-Z-]+)\\s+(\\d+)-(\\d+)");
    /**
     * Options the pages name that belong to other commands than the ones whose help is read here: {@code --sync}, the
     * peers' processes' ({@code wharf perf artemis|classic}), {@code --replica}, {@code wharf server}'s.
     */
    private static final Set<String> OTHER_COMMANDS = Set.of("--sync", "--replica");

    @Test
    void everyWorkloadIsDefinedInBenchmarksMdAndListedByTheHelp() throws Exception {
        List<String> leads = new ArrayList<>();
        Matcher lead = LEAD.matcher(read("docs/benchmarks.md"));
        while (lead.find()) {
            leads.add(lead.group(1));
        }
        String usage = between(help(() -> PerfMain.run(new String[] {"--help"})), "Workloads:", "(any F-*");
        String run = between(help(() -> RunCommand.run(new String[] {"--help"}, false)), "WORKLOAD", "--sizes");
        for (Workload w : Workload.values()) {
            assertTrue(leads.stream().anyMatch(l -> names(l, w.id())), "docs/benchmarks.md defines " + w.id()
                    + " in a paragraph of its own, its bold lead naming it");
            assertTrue(names(usage, w.id()), "wharf perf --help lists " + w.id() + ": " + usage);
            assertTrue(names(run, w.id()), "wharf perf run --help lists " + w.id() + ": " + run);
        }
    }

    @Test
    void everyOptionThePagesNameIsOneOfTheHarnessAndEveryOptionOfItsHelpIsOnAPage() throws Exception {
        Map<String, String> helps = Map.of(
                "wharf perf run --help", help(() -> RunCommand.run(new String[] {"--help"}, false)),
                "wharf perf report --help", help(() -> ReportCommand.run(new String[] {"--help"})),
                "wharf perf footprint --help", help(() -> FootprintCommand.run(new String[] {"--help"})));
        Set<String> taken = new TreeSet<>(Set.of("--help"));
        helps.values().forEach(h -> taken.addAll(longOptions(h)));
        String pages = read("docs/benchmarks.md") + read("docs/performance.md");
        Set<String> named = longOptions(pages);
        for (String option : named) {
            assertTrue(taken.contains(option) || OTHER_COMMANDS.contains(option), "docs/benchmarks.md or docs/performance.md"
                    + " names " + option + ", which neither perf run, perf report nor perf footprint takes (their help: " + taken + ")");
        }
        helps.forEach((command, help) -> {
            for (String option : longOptions(help)) {
                assertTrue(named.contains(option), command + " lists " + option
                        + ", which neither docs/benchmarks.md nor docs/performance.md names");
            }
        });
    }

    @Test
    void performanceMdDescribesEveryDriverOptionAndTestClass() throws Exception {
        String driver = between(read("docs/performance.md"), "**A JMSPerfHarness-compatible driver.**", "**Exactly-once checks.**");
        for (Option o : Option.values()) {
            assertTrue(Pattern.compile("(?<![\\w-])-" + o.key() + "(?![\\w-])").matcher(driver).find(),
                    "docs/performance.md's description of the driver names -" + o.key() + " (" + o.description() + ")");
        }
        for (TestClass t : TestClass.values()) {
            String name = t.harnessName().substring("jms.r11.".length());
            assertTrue(names(driver, name), "docs/performance.md's description of the driver names -tc " + name);
            assertTrue(names(Option.TC.description(), name), "-tc's help names " + name + ": " + Option.TC.description());
        }
    }

    /**
     * benchmarks.md's table of rows covers every row of the results table once, in order, each line naming the workloads
     * of its rows and no other (the memory rows: the memory); the paragraph on the large flow rows gives each flow's
     * numbers as the plan has them.
     */
    @Test
    void benchmarksMdNumbersTheRowsAsReportListDoes() throws Exception {
        String doc = read("docs/benchmarks.md");
        String table = between(doc, "## The results table", "**What a report runs");
        Matcher line = ROWS_LINE.matcher(table);
        int next = 1;
        String largeFlowRows = null;
        while (line.find()) {
            int first = Integer.parseInt(line.group(1));
            int last = line.group(2) == null ? first : Integer.parseInt(line.group(2));
            String what = line.group(3);
            assertEquals(next, first, "benchmarks.md's table of rows goes on at row " + next + ": " + line.group());
            Set<String> rowIds = new TreeSet<>();
            for (int n = first; n <= last; n++) {
                ResultsPlan.Row row = ResultsPlan.ROWS.get(n - 1);
                if (row.workload() == null) {
                    assertTrue(what.contains("memory"), "row " + n + " is " + row.label() + ": " + line.group());
                } else {
                    rowIds.add(row.workload().id());
                }
            }
            Set<String> namedIds = new TreeSet<>();
            for (Workload w : Workload.values()) {
                if (names(what, w.id())) {
                    namedIds.add(w.id());
                }
            }
            if (namedIds.isEmpty() && what.contains("large flow rows")) {
                largeFlowRows = first + "-" + last;
            } else {
                assertEquals(rowIds, namedIds, "rows " + first + "-" + last + " are " + rowIds + ": " + line.group());
            }
            next = last + 1;
        }
        assertEquals(ResultsPlan.ROWS.size() + 1, next, "benchmarks.md's table of rows ends with the last row");

        String paragraph = between(doc, "**The large flow rows (" + largeFlowRows + ").**", "\n\n");
        Matcher flow = FLOW_ROWS.matcher(paragraph);
        List<Integer> covered = new ArrayList<>();
        while (flow.find()) {
            for (int n = Integer.parseInt(flow.group(2)); n <= Integer.parseInt(flow.group(3)); n++) {
                assertEquals(flow.group(1), ResultsPlan.ROWS.get(n - 1).workload().id(), "row " + n + ": " + flow.group());
                covered.add(n);
            }
        }
        String[] range = largeFlowRows.split("-");
        List<Integer> all = new ArrayList<>();
        for (int n = Integer.parseInt(range[0]); n <= Integer.parseInt(range[1]); n++) {
            all.add(n);
        }
        assertEquals(all, covered, "the paragraph on the large flow rows gives every one of rows " + largeFlowRows + " once, in order");
    }

    /** "How to run it" says how long the whole report takes as {@code wharf perf report --list} estimates it. */
    @Test
    void howToRunItGivesTheReportsLengthAsListEstimatesIt() throws Exception {
        String howTo = between(read("docs/performance.md"), "**How to run it.**", "## Results");
        Matcher stated = Pattern.compile("bin/wharf perf report +# every row, on Wharf, Artemis and ActiveMQ Classic: about ([^\\n]+?) on 2 cores")
                .matcher(howTo);
        assertTrue(stated.find(), howTo);
        String list = help(() -> ReportCommand.run(new String[] {"--list"}));
        Matcher total = Pattern.compile(ResultsPlan.ROWS.size() + " rows: about (.+?) with Artemis and ActiveMQ Classic").matcher(list);
        assertTrue(total.find(), list);
        assertEquals(total.group(1), stated.group(1), "docs/performance.md's \"How to run it\" against wharf perf report --list");
    }

    /**
     * {@code --help} after the workload or other options is the help, as a newcomer types it: {@code wharf perf run
     * RR-1 --help} said "--help needs a value (see --help)", and {@code report --rows 1 --help} the same.
     */
    @Test
    void helpAnywhereOnTheLineIsTheHelp() throws Exception {
        String run = help(() -> RunCommand.run(new String[] {"--help"}, false));
        assertEquals(run, help(() -> RunCommand.run(new String[] {"RR-1", "--help"}, false)));
        assertEquals(run, help(() -> RunCommand.run(new String[] {"RR-4", "--persistent", "-h"}, true)));
        String report = help(() -> ReportCommand.run(new String[] {"--help"}));
        assertEquals(report, help(() -> ReportCommand.run(new String[] {"--rows", "1", "--help"})));
        String footprint = help(() -> FootprintCommand.run(new String[] {"--help"}));
        assertEquals(footprint, help(() -> FootprintCommand.run(new String[] {"--queues", "10", "--help"})));
    }

    /** Whether {@code text} names {@code word} as a whole: RR-2 is not named by RR-2b. */
    private static boolean names(String text, String word) {
        return Pattern.compile("(?<![A-Za-z0-9-])" + Pattern.quote(word) + "(?![A-Za-z0-9-])").matcher(text).find();
    }

    private static Set<String> longOptions(String text) {
        Set<String> options = new TreeSet<>();
        Matcher m = LONG_OPTION.matcher(text);
        while (m.find()) {
            options.add(m.group());
        }
        return options;
    }

    private static String between(String text, String from, String to) {
        int start = text.indexOf(from);
        assertTrue(start >= 0, "\"" + from + "\" is there");
        int end = text.indexOf(to, start + from.length());
        assertTrue(end > start, "\"" + to + "\" follows \"" + from + "\"");
        return text.substring(start, end);
    }

    private static String read(String file) throws IOException {
        return Files.readString(ROOT.resolve(file));
    }

    /** What {@code command} prints on standard output (a command's help, {@code --list}), its exit status 0. */
    private static String help(Callable<Integer> command) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = System.out;
        int status;
        try (PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            System.setOut(capture);
            status = command.call();
        } finally {
            System.setOut(out);
        }
        assertEquals(0, status);
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
