package org.wharfmq.server.store;

import org.wharfmq.server.config.ConfigurationException;

import java.util.Locale;

/**
 * What a journal record survives once the journal has acknowledged it (setting {@code durability}). See
 * docs/persistence.md for the exact promise of each.
 */
public enum Durability {

    /**
     * Every batch is forced to the disk ({@code fdatasync} of the journal file, mapped pages included) before its
     * records are acknowledged: an acknowledged message survives a process crash, a kernel panic and a power loss,
     * as far as the disk honours cache flushes.
     */
    FSYNC,

    /**
     * A batch is acknowledged once it is written to the journal's memory-mapped pages, which belong to the
     * operating system's page cache: an acknowledged message survives the process being killed, but not a crash
     * of the machine or a power loss before the kernel writes the pages back (usually within seconds).
     */
    OS;

    /**
     * Reads the YAML value, case-insensitively.
     *
     * @throws ConfigurationException naming the accepted values
     */
    public static Durability parse(String value) {
        if (value != null) {
            for (Durability d : values()) {
                if (d.name().equalsIgnoreCase(value.trim())) {
                    return d;
                }
            }
        }
        throw new ConfigurationException("Setting durability must be 'fsync' (survives power loss) or 'os' "
                + "(survives a process crash only), was '" + value + "'.");
    }

    /** The YAML spelling. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
