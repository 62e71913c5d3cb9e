#!/bin/sh
# The TLS keys of the distributed example (docs/distributed.md, "Worked example"), made with the JDK's keytool into
# tls/ beside this script: a private CA of the example's own, and for each queue manager (qm1, qm2, qm3) a key and a
# certificate the CA signs, for its TLS listener. Each sender channel trusts the CA (tls/trust.p12), so it connects
# to its partner's listener over ssl:// and checks that the partner's certificate names the host of its connection.
#
#   sh config/examples/distributed/make-keys.sh
#
# The certificates name the host the channels connect to, as a DNS name (HOST, default localhost) and an IP address
# (IP, default 127.0.0.1): the example runs its three queue managers on one machine. On three machines, give each
# its own: HOST=qm2.example.com IP=10.0.0.6 ... (and the connection: of the senders to match). The stores' password
# is STOREPASS (default changeit): set the same as keyStorePassword and trustStorePassword in the wharf.yaml files.
# Keep tls/ca.p12 (the CA's private key) off the queue managers once the certificates are made.
set -eu
cd "$(dirname "$0")"
host=${HOST:-localhost}
ip=${IP:-127.0.0.1}
pass=${STOREPASS:-changeit}
mkdir -p tls
rm -f tls/*.p12 tls/*.crt
keytool -genkeypair -alias ca -keyalg EC -dname "CN=Example distributed CA" -ext bc:c -validity 3650 \
        -storetype PKCS12 -keystore tls/ca.p12 -storepass "$pass"
keytool -exportcert -rfc -alias ca -keystore tls/ca.p12 -storepass "$pass" > tls/ca.crt
keytool -importcert -noprompt -alias ca -file tls/ca.crt -storetype PKCS12 -keystore tls/trust.p12 -storepass "$pass"
for qm in qm1 qm2 qm3; do
  keytool -genkeypair -alias "$qm" -keyalg EC -dname "CN=$qm,O=Example" -validity 825 \
          -storetype PKCS12 -keystore "tls/$qm.p12" -storepass "$pass"
  keytool -certreq -alias "$qm" -keystore "tls/$qm.p12" -storepass "$pass" \
    | keytool -gencert -alias ca -keystore tls/ca.p12 -storepass "$pass" -ext "san=dns:$host,ip:$ip" \
              -validity 825 -rfc > "tls/$qm.crt"
  keytool -importcert -noprompt -alias ca -file tls/ca.crt -keystore "tls/$qm.p12" -storepass "$pass"
  keytool -importcert -alias "$qm" -file "tls/$qm.crt" -keystore "tls/$qm.p12" -storepass "$pass"
done
echo "Made tls/qm1.p12, tls/qm2.p12, tls/qm3.p12 (for $host, $ip) and tls/trust.p12 (the CA)."
