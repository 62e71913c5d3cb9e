package org.wharfmq.jms;

import javax.jms.ConnectionMetaData;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Describes this JMS provider: Wharf, implementing JMS 2.0 as the javax.jms client and Jakarta Messaging 3.1 as the
 * jakarta.jms client (the same class, renamed by the Eclipse Transformer: which API it implements is the package of
 * the interface it was linked against).
 */
final class WharfConnectionMetaData implements ConnectionMetaData {
    static final WharfConnectionMetaData INSTANCE = new WharfConnectionMetaData();

    /**
     * The JMSX properties Wharf supports: the delivery count it sets on receipt, the user id it sets on send (when
     * the connection has a user name), and the two group properties the JMS specification requires.
     */
    private static final List<String> JMSX_PROPERTIES = List.of("JMSXUserID", "JMSXDeliveryCount", "JMSXGroupID", "JMSXGroupSeq");
    private static final int PROVIDER_MAJOR = 0;
    private static final int PROVIDER_MINOR = 1;
    /**
     * Whether this class implements {@code jakarta.jms.ConnectionMetaData}: the literal "jakarta." is no name of the
     * javax.jms package, so the transformer leaves it as it is, while the class's name becomes jakarta.jms's.
     */
    private static final boolean JAKARTA = ConnectionMetaData.class.getName().startsWith("jakarta.");
    private static final int JMS_MAJOR = JAKARTA ? 3 : 2;
    private static final int JMS_MINOR = JAKARTA ? 1 : 0;

    private WharfConnectionMetaData() {
    }

    @Override
    public String getJMSVersion() {
        return JMS_MAJOR + "." + JMS_MINOR;
    }

    @Override
    public int getJMSMajorVersion() {
        return JMS_MAJOR;
    }

    @Override
    public int getJMSMinorVersion() {
        return JMS_MINOR;
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
