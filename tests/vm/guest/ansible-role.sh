#!/bin/sh
# The Ansible role (fleet/ansible/roles/kcsmux, docs/fleet.md) in
# vm.pkg-admin's Debian 12 guest, sourced by cutover-scenarios.sh: its
# runs take the place of the scenarios' manual apply, second apply and
# rollback where ansible-playbook is there (the Debian 12 image has
# ansible-core; the Debian 13 one has not: the manual steps run there).
# The role comes as /guest/fleet-ansible.tar (pkg-admin.sh packs it).
#   have_role            ansible-playbook and the role are there
#   role_play FILE [ARGS...]  a run, -c local, with the shipped
#                        ansible.cfg (pipelining); its output in FILE, its
#                        exit status in rc, the recap's changed= and
#                        failed= in role_changed and role_failed

have_role() {
	command -v ansible-playbook >/dev/null && [ -s /guest/fleet-ansible.tar ]
}

# The playbook: the role with the scenario's kcsmux.conf (scenario_conf)
# as variables, from the .debs the guest installed.
role_setup() {
	rm -rf /tmp/fleet && mkdir -p /tmp/fleet && tar -C /tmp/fleet -xf /guest/fleet-ansible.tar
	cat >/tmp/fleet/test.yml <<EOY
- hosts: localhost
  gather_facts: false
  vars:
    kcsmux_debs: [$(ls /tmp/kcsmux_*.deb /tmp/kcsraw-dkms_*.deb | paste -sd, -)]
    kcsmux_global: {backend: kcsraw}
    kcsmux_nodes:
      - {name: ipmi2, policy: monitor, access: sensors, interface: 0}
      - {name: ipmi3, policy: monitor, access: monitoring}
      - {name: ipmi1, policy: interactive}
  roles: [kcsmux]
EOY
}

role_play() {
	_f=$1
	shift
	[ -s /tmp/fleet/test.yml ] || role_setup
	s0=$(date +%s)
	run_to "$_f" env HOME=/root LC_ALL=C.UTF-8 ANSIBLE_NOCOLOR=1 \
		ANSIBLE_CONFIG=/tmp/fleet/ansible/ansible.cfg \
		ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 \
		ansible-playbook -c local -i localhost, /tmp/fleet/test.yml "$@"
	rc=$?
	role_t=$(($(date +%s) - s0))
	echo "    (ansible-playbook took $role_t s, exit $rc)"
	role_changed=$(sed -n 's/^localhost *:.* changed=\([0-9]*\) .*/\1/p' "$_f")
	role_failed=$(sed -n 's/^localhost *:.* failed=\([0-9]*\) .*/\1/p' "$_f")
}

# The last cutover run's messages as kcsmux-cutover printed them
role_messages() {
	sed 's/^/kcsmux-cutover: /' /var/lib/kcsmux/cutover/last/messages.txt >"$1"
}
