"""The IOS-XR push adapter: NETCONF (RFC 6241) confirmed commit over ncclient.

NAPALM 5.2's `iosxr_netconf` driver commits without a confirm timer (`commit_config(revert_in)`
raises NotImplementedError), so a failed push depends on meetme reaching the router again.
This adapter keeps NAPALM's driver for what it does well (the connection and the getters the
post-checks read: get_bgp_neighbors, get_interfaces, get_lldp_neighbors) and replaces the
configuration path, so that the router reverts by itself:

- lock the candidate datastore before anything (RFC 6241 §7.5); a lock-denied names the
  NETCONF session holding it (someone's uncommitted work, or a confirmed commit awaiting its
  confirm), before any change;
- <edit-config> to the candidate, default-operation replace, the rendered CLI text in the
  Cisco-IOS-XR-cli-cfg <cli> container ("CLI over NETCONF", IOS-XR 7.x; NAPALM sends the same
  container with <copy-config>), XML-escaped by lxml (NAPALM concatenates the text raw);
  then <validate> (§8.6);
- the diff: Cisco-IOS-XR-cli-diff-act <get-cli-config-diff>, as NAPALM reads it;
- <commit><confirmed/><confirm-timeout>N</confirm-timeout></commit> (§8.4): the router
  reverts unless the confirming <commit/> follows within N s. No <persist>: the confirming
  commit must then come from the same session, and the end of that session — a killed
  meetme, a lost connection — reverts the change at once (§8.4.1), the timer covering a
  path lost silently;
- on a failed post-check <cancel-commit/> (§8.4.5.2): exact revert; on a failed load
  <discard-changes/>; the lock is held from the first look until the confirm or revert.

The SSH host key is not verified: ncclient's iosxr device handler accepts any key
(ncclient/devices/iosxr.py), as NAPALM's driver does.
"""

from __future__ import annotations

import re
from typing import Any

from lxml import etree
from napalm.base.exceptions import ConnectionException, ReplaceConfigException
from napalm.iosxr.utilities import strip_config_header
from napalm.iosxr_netconf.iosxr_netconf import IOSXRNETCONFDriver
from ncclient import manager
from ncclient.operations.rpc import RPCError

BASE_NS = "urn:ietf:params:xml:ns:netconf:base:1.0"
# the running hostname (operational data): Cisco-IOS-XR-shellutil-oper system-time/uptime/
# host-name, the leaf NAPALM 5.2's iosxr_netconf get_facts reads (napalm/iosxr_netconf/
# constants.py FACTS_RPC_REQ, iosxr_netconf.py get_facts)
SHELLUTIL_OPER_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-shellutil-oper"
CLI_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-cli-cfg"
DIFF_NS = "http://cisco.com/ns/yang/Cisco-IOS-XR-cli-diff-act"
_SESSION_ID = re.compile(r"<(?:\w+:)?session-id>\s*(\d+)\s*<")


class CommitOutcomeUnknown(Exception):
    """The connection broke while a commit or its confirm was under way."""


class IosxrNetconf(IOSXRNETCONFDriver):  # type: ignore[misc]
    """NAPALM's iosxr_netconf driver with a confirmed commit the router enforces."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # True: our confirmed commit awaits its confirm; None: the commit's fate is unknown
        self._confirming: bool | None = False

    def open(self) -> None:
        try:
            self.device = manager.connect(
                host=self.hostname,
                port=self.port,
                username=self.username,
                password=self.password,
                timeout=self.timeout,
                device_params={"name": "iosxr"},
                allow_agent=False,  # the inventory's password only, never a local key
                look_for_keys=False,
            )
        except Exception as exc:
            raise ConnectionException(f"{type(exc).__name__}: {exc}") from exc

    # ---- before any change --------------------------------------------------------------------

    def reported_hostname(self) -> str:
        """The router's running hostname: <get> with a subtree filter on Cisco-IOS-XR-
        shellutil-oper system-time/uptime/host-name (RFC 6241 §7.7; the leaf NAPALM's
        get_facts reads). Only this leaf is asked for, not the whole of get_facts."""
        query = etree.Element(
            f"{{{SHELLUTIL_OPER_NS}}}system-time", nsmap={None: SHELLUTIL_OPER_NS}
        )
        uptime = etree.SubElement(query, f"{{{SHELLUTIL_OPER_NS}}}uptime")
        etree.SubElement(uptime, f"{{{SHELLUTIL_OPER_NS}}}host-name")
        reply = self.device.get(filter=("subtree", query))
        root = etree.fromstring(reply.data_xml.encode())
        found = root.find(
            f".//{{{SHELLUTIL_OPER_NS}}}system-time/{{{SHELLUTIL_OPER_NS}}}uptime/"
            f"{{{SHELLUTIL_OPER_NS}}}host-name"
        )
        return (found.text or "").strip() if found is not None else ""

    def pending(self) -> list[str]:
        """Take the candidate lock; what holds it instead, by session, when it is refused."""
        try:
            self.device.lock(target="candidate")
        except RPCError as exc:
            if exc.tag not in ("lock-denied", "in-use"):
                raise
            found = _SESSION_ID.search(str(exc.info or ""))
            holder = f"NETCONF session {found.group(1)}" if found else "another NETCONF session"
            return [
                f"the candidate datastore is locked by {holder} ({exc.message}): someone's "
                "uncommitted changes, or a confirmed commit awaiting its confirm; the router "
                "releases it when that session ends (a confirmed commit is then reverted)"
            ]
        self.locked = True
        return []

    # ---- the configuration path ----------------------------------------------------------------

    def load_replace_candidate(self, filename: str | None = None, config: str = "") -> None:
        self._lock()
        self.pending_changes, self.replace = True, True
        payload = etree.Element(f"{{{BASE_NS}}}config", nsmap={None: BASE_NS})
        etree.SubElement(payload, f"{{{CLI_NS}}}cli", nsmap={None: CLI_NS}).text = config
        try:
            self.device.edit_config(
                target="candidate",
                config=payload,
                default_operation="replace",
                error_option="rollback-on-error",
            )
            self.device.validate(source="candidate")
        except RPCError as exc:  # the router's answer: nothing of it is in the candidate
            self.pending_changes = False
            raise ReplaceConfigException(f"{exc.tag}: {exc.message}") from exc

    def compare_config(self) -> str:
        if not self.pending_changes:
            return ""
        reply = self.device.dispatch(etree.Element(f"{{{DIFF_NS}}}get-cli-config-diff"))
        root = etree.fromstring(reply.xml.encode())
        text = root[0].text if len(root) else ""
        return str(strip_config_header(text or ""))

    def commit_config(self, message: str = "", revert_in: int | None = None) -> None:
        if revert_in is None:
            raise NotImplementedError("meetme commits IOS-XR only with a confirm timeout")
        self._confirming = None
        try:
            self.device.commit(confirmed=True, timeout=str(revert_in))
        except RPCError:
            self._confirming = False  # refused: the running config is unchanged
            raise
        self._confirming, self.pending_changes = True, False

    def has_pending_commit(self) -> bool:
        if self._confirming is None:
            raise CommitOutcomeUnknown(
                "the connection broke during the commit: whether it took effect is unknown"
            )
        return self._confirming

    def confirm_commit(self) -> None:
        self._confirming = None
        self.device.commit()  # the confirming commit, from the session that committed
        self._confirming = False
        self._unlock()

    def rollback(self) -> None:
        if not self._confirming:
            raise CommitOutcomeUnknown("no confirmed commit of this session to cancel")
        self.device.cancel_commit()  # exact revert to the config before our commit
        self._confirming = False
        self._unlock()

    def discard_config(self) -> None:
        if self.device is None:
            return
        super().discard_config()  # <discard-changes/>, then unlock
