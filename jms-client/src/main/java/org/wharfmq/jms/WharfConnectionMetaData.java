package org.wharfmq.jms;

import javax.jms.ConnectionMetaData;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/** Describes this JMS provider: Wharf, implementing JMS 2.0. */
final class WharfConnectionMetaData implements ConnectionMetaData {
    static final WharfConnectionMetaData INSTANCE = new WharfConnectionMetaData();

    /**
     * The JMSX properties Wharf supports: the delivery count it sets on receipt, the user id it sets on send (when
     * the connection has a user name), and the two group properties the JMS specification requires.
     */
    private static final List<String> JMSX_PROPERTIES = List.of("JMSXUserID", "JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq");
    private static final int PROVIDER_MAJOR = 0;
    private static final int PROVIDER_MINOR = 1;

    private WharfConnectionMetaData() {
    }

    @Override
    public String getJMSVersion() {
        return "2.0";
    }

    @Override
    public int getJMSMajorVersion() {
        return 2;
    }

    @Override
    public int getJMSMinorVersion() {
        return 0;
    }

    @Override
    public String getJMSProviderName() {
        return "Wharf";
    }

    /** The jar's Implementation-Version when packaged with one, else major.minor. */
    @Override
    public String getProviderVersion() {
        String version = WharfConnectionMetaData.class.getPackage().getImplementationVersion();
        return version != null ? version : PROVIDER_MAJOR + "." + PROVIDER_MINOR;
    }

    @Override
    public int getProviderMajorVersion() {
        return PROVIDER_MAJOR;
    }

    @Override
    public int getProviderMinorVersion() {
        return PROVIDER_MINOR;
    }

    @Override
    public Enumeration<String> getJMSXPropertyNames() {
        return Collections.enumeration(JMSX_PROPERTIES);
    }
}
