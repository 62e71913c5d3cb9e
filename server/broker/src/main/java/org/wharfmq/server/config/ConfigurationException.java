package org.wharfmq.server.config;

/**
 * The configuration cannot be used: the file is missing or not valid YAML, names a setting that does not exist,
 * or gives a value out of range. The message says which file, which setting and what to do.
 */
public final class ConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Creates the exception with a message naming the problem and the setting. */
    public ConfigurationException(String message) {
        super(message);
    }

    /** Creates the exception with a message naming the problem and the exception behind it. */
    public ConfigurationException(String message, Throwable cause) {
        super(message, cause);
    }
}
