#!/usr/bin/env python3
"""Generate a "realistic" test BMC configuration for ipmi_sim.

    gen-big-bmc.py OUTDIR [--sensors N]

Writes into OUTDIR a complete configuration directory of the kind
tests/vm/bmc/ holds (sdrs.sdrs, kcsmux.emu, fru-bmc.conf, fru-hsbp.conf,
sel.txt, lan.conf.in), for start-bmc.sh to use instead of its own directory
(KCSMUX_BMC_CONF=OUTDIR): the rig's BMC, unchanged, plus N generated
sensors with readings (default 160: with the rig's 16 that is 176 sensors
and 178 SDRs, the size of a two-socket server's repository).  Each generated
sensor has a full (type 1) or compact (type 2) SDR owned by the BMC (0x20,
LUN 0, sensor numbers from 0x50 up), a fixed raw reading set in kcsmux.emu,
and thresholds in its SDR.  The mix follows a two-socket rack server:
per-core and package CPU temperatures, DIMM temperatures, voltage
regulator and board temperatures, dual-rotor fans, voltage rails, PSU
currents and powers, and discrete drive-slot and processor presence
sensors.  The output is deterministic (same N, same files).

The rig's default configuration (tests/vm/bmc/) is not touched: the other
tests keep their 16 sensors.  docs/bench-agents.md uses this.
"""
import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIRST = 0x50           # first generated sensor number (the rig uses < 0x50)
MAXN = 0xff - FIRST + 1  # 176: LUN 0 has 256 sensor numbers

# kind: (sdrcomp entity_id, sensor_type, base_unit, m, b, r_exp,
#        thresholds (name -> engineering value), hysteresis, raw reading fn)
THRESH_NAMES = {
    "lnr": ("assert_lnrgl", "deassert_lnrgl", "return_lnr"),
    "lc": ("assert_lcgl", "deassert_lcgl", "return_lc"),
    "lnc": ("assert_lncgl", "deassert_lncgl", "return_lnc"),
    "unc": ("assert_uncgh", "deassert_uncgh", "return_unc"),
    "uc": ("assert_ucgh", "deassert_ucgh", "return_uc"),
    "unr": ("assert_unrgh", "deassert_unrgh", "return_unr"),
}


def threshold_sdr(num, name, entity, inst, stype, unit, m, b, r_exp,
                  nominal, thresholds, hyst):
    """A full sensor record, in the rig's sdrs.sdrs style."""
    out = ["sdr type 1",
           "\tsensor_owner_id\t\t0x20",
           "\tsensor_owner_lun\t0",
           "\tchannel_number\t\t0",
           f"\tsensor_number\t\t0x{num:02x}",
           f"\tentity_id\t\t{entity}",
           f"\tentity_instance\t\t{inst}",
           "\tinit_scanning\t\ttrue",
           "\tinit_events\t\ttrue",
           "\tinit_thresholds\t\ttrue",
           "\tinit_hysteresis\t\ttrue",
           "\tinit_sensor_type\ttrue",
           "\tdefault_event_gen_on\ttrue",
           "\tdefault_sensor_scan_on\ttrue",
           "\tsensor_auto_rearm\ttrue",
           "\tsensor_hysteresis\treadable",
           "\tsensor_threshold_access\tsettable",
           "\tsensor_event_msg_ctrl\tper_state",
           f"\tsensor_type\t\t{stype}",
           "\tevent_reading_type_code\t0x01"]
    for t in THRESH_NAMES:
        if t in thresholds:
            a, d, _ = THRESH_NAMES[t]
            out += [f"\t{a}\t\ttrue", f"\t{d}\t\ttrue"]
    for t in THRESH_NAMES:
        if t in thresholds:
            out.append(f"\t{THRESH_NAMES[t][2]}\t\ttrue")
    for t in THRESH_NAMES:
        if t in thresholds:
            out.append(f"\t{t}_thrsh_readable\ttrue")
    for t in THRESH_NAMES:
        if t in thresholds:
            out.append(f"\t{t}_thrsh_settable\ttrue")
    out += ["\tanalog_data_format\tunsigned",
            "\trate_unit\t\tnone",
            "\tmodifier_unit\t\tnone",
            "\tpercentage\t\tfalse",
            f"\tbase_unit\t\t{unit}",
            "\tmodifier_unit_code\tunspecified",
            "\tlinearization\t\tlinear",
            f"\tm\t\t\t{m}",
            "\ttolerance\t\t0",
            f"\tb\t\t\t{b}",
            "\taccuracy\t\t0",
            "\taccuracy_exp\t\t0",
            "\tsensor_direction\tinput",
            f"\tr_exp\t\t\t{r_exp}",
            "\tb_exp\t\t\t0",
            "\tnominal_specified\ttrue",
            f"\tnominal_freading\t{nominal}",
            "\tsensor_maximum\t\t255",
            "\tsensor_minimum\t\t0"]
    for t in THRESH_NAMES:
        if t in thresholds:
            out.append(f"\t{t}_fthresh\t\t{thresholds[t]}")
    out += [f"\tpositive_fhysteresis\t{hyst}",
            f"\tnegative_fhysteresis\t{hyst}",
            f'\tid_string\t\t"{name}"',
            "endsdr", ""]
    return out


def discrete_sdr(num, name, entity, inst, stype, events):
    """A compact sensor-specific (0x6f) record with EVENTS offsets."""
    out = ["sdr type 2",
           "\tsensor_owner_id\t\t0x20",
           "\tsensor_owner_lun\t0",
           "\tchannel_number\t\t0",
           f"\tsensor_number\t\t0x{num:02x}",
           f"\tentity_id\t\t{entity}",
           f"\tentity_instance\t\t{inst}",
           "\tinit_scanning\t\ttrue",
           "\tinit_events\t\ttrue",
           "\tinit_sensor_type\ttrue",
           "\tdefault_event_gen_on\ttrue",
           "\tdefault_sensor_scan_on\ttrue",
           "\tsensor_auto_rearm\ttrue",
           "\tsensor_event_msg_ctrl\tper_state",
           f"\tsensor_type\t\t{stype}",
           "\tevent_reading_type_code\t0x6f"]
    out += [f"\tassert_event{e}\t\ttrue" for e in events]
    out += [f"\tdeassert_event{e}\t\ttrue" for e in events]
    out += [f"\tevent{e}_state_ret\ttrue" for e in events]
    out += [f'\tid_string\t\t"{name}"', "endsdr", ""]
    return out


def plan(n):
    """The generated sensors: list of dicts, in sensor-number order."""
    s = []

    def temp(name, entity, inst, raw, unc, uc, unr):
        s.append(dict(kind="thr", name=name, entity=entity, inst=inst,
                      stype="Temperature", unit="degrees_C", m=1, b=0,
                      r_exp=0, raw=raw, nominal=raw,
                      th=dict(unc=unc, uc=uc, unr=unr), hyst=2, sdrtype=0x01))

    for cpu in (1, 2):
        temp(f"CPU{cpu} Pkg Temp", "processor", cpu, 44 + cpu, 88, 95, 100)
        for core in range(12):
            temp(f"CPU{cpu} Core{core} Temp", "processor", cpu,
                 40 + (core * 3 + cpu) % 9, 88, 95, 100)
    for cpu in (1, 2):
        for ch in "ABCDEFGH":
            for d in (1, 2):
                temp(f"DIMM {cpu}{ch}{d} Temp", "memory_device",
                     (cpu - 1) * 16 + "ABCDEFGH".index(ch) * 2 + d,
                     30 + (ord(ch) + d + cpu) % 8, 80, 85, 90)
    for i, vr in enumerate(["VR CPU1", "VR CPU2", "VR MEM1 ABCD",
                            "VR MEM1 EFGH", "VR MEM2 ABCD", "VR MEM2 EFGH",
                            "VR P1V8", "VR PVNN"]):
        temp(f"{vr} Temp"[:16], "power_module", i + 1, 38 + i % 5, 100, 110, 115)
    for i, t in enumerate(["PCH Temp", "NIC1 Temp", "NIC2 Temp", "M2 SSD1 Temp",
                           "M2 SSD2 Temp", "PCIe1 Temp", "PCIe2 Temp",
                           "PCIe3 Temp", "Riser1 Temp", "Riser2 Temp",
                           "PSU1 Temp", "PSU2 Temp", "BP Temp", "OCP Temp",
                           "Ambient2 Temp", "Outlet Temp",
                           "CPLD Temp", "BMC Temp"]):
        temp(t, "system_board", i + 2, 33 + i % 7, 85, 90, 95)
    for fan in range(1, 13):
        for rotor in "AB":
            raw = 80 + (fan * 3 + (rotor == "B")) % 15
            s.append(dict(kind="thr", name=f"FAN{fan}{rotor}",
                          entity="fan_cooling_device", inst=fan,
                          stype="Fan", unit="RPM", m=60, b=0, r_exp=0,
                          raw=raw, nominal=raw * 60,
                          th=dict(lnr=300, lc=600, lnc=1200), hyst=60,
                          sdrtype=0x04))
    rails = [("P12V CPU1", 12.0), ("P12V CPU2", 12.0), ("P5V", 5.0),
             ("P5V STBY", 5.0), ("P3V3", 3.3), ("P3V3 STBY", 3.3),
             ("P3V BAT", 3.0), ("P1V8 PCH", 1.8), ("P1V05 PCH", 1.05),
             ("PVCCIN CPU1", 1.8), ("PVCCIN CPU2", 1.8),
             ("PVCCIO CPU1", 1.0), ("PVCCIO CPU2", 1.0),
             ("PVDDQ ABCD CPU1", 1.2), ("PVDDQ EFGH CPU1", 1.2),
             ("PVDDQ ABCD CPU2", 1.2), ("PVDDQ EFGH CPU2", 1.2),
             ("PVPP ABCD CPU1", 2.5), ("PVPP EFGH CPU1", 2.5),
             ("PVPP ABCD CPU2", 2.5), ("PVPP EFGH CPU2", 2.5),
             ("PVNN PCH", 1.0), ("P12V PSU1", 12.0), ("P12V PSU2", 12.0)]
    for i, (name, v) in enumerate(rails):
        # 8-bit raw with a scale that puts the nominal near raw 200
        if v >= 10:
            m, r = 6, -2
        elif v >= 4:
            m, r = 25, -3
        elif v >= 2:
            m, r = 15, -3
        else:
            m, r = 1, -2
            if v < 1.5:
                m, r = 6, -3
        step = m * 10.0 ** r
        raw = int(round(v / step))
        if raw > 250:
            raw = 250
        th = {k: f"{v * f:.3f}".rstrip("0").rstrip(".")
              for k, f in (("lnr", 0.85), ("lc", 0.9), ("lnc", 0.95),
                           ("unc", 1.05), ("uc", 1.1), ("unr", 1.15))}
        s.append(dict(kind="thr", name=name, entity="system_board",
                      inst=i + 2, stype="Voltage", unit="Volts", m=m, b=0,
                      r_exp=r, raw=raw,
                      nominal=f"{raw * step:.3f}".rstrip("0").rstrip("."),
                      th=th, hyst=0, sdrtype=0x02))
    for psu in (1, 2):
        for what, raw in (("Curr In", 19), ("Curr Out", 150)):
            # 0.1 A per count
            s.append(dict(kind="thr", name=f"PSU{psu} {what}",
                          entity="power_supply", inst=psu, stype="Current",
                          unit="Amps", m=1, b=0, r_exp=-1, raw=raw,
                          nominal=f"{raw / 10:.1f}",
                          th=dict(unc=20, uc=22, unr=24),
                          hyst=0, sdrtype=0x03))
    for i, (name, raw) in enumerate([("PSU1 Pwr In", 45), ("PSU2 Pwr In", 44),
                                     ("PSU1 Pwr Out", 40), ("PSU2 Pwr Out", 39)]):
        # 5 W per count
        s.append(dict(kind="thr", name=name, entity="power_supply",
                      inst=i % 2 + 1, stype="Other_Units_Based_Sensor",
                      unit="Watts", m=5, b=0, r_exp=0, raw=raw,
                      nominal=raw * 5, th=dict(unc=900, uc=1000, unr=1100),
                      hyst=0, sdrtype=0x0b))
    for i, (name, raw) in enumerate([("CPU1 Power", 30), ("CPU2 Power", 29),
                                     ("Mem Power", 12), ("Sys Power", 85)]):
        s.append(dict(kind="thr", name=name, entity="system_board",
                      inst=i + 20, stype="Other_Units_Based_Sensor",
                      unit="Watts", m=5, b=0, r_exp=0, raw=raw,
                      nominal=raw * 5, th=dict(unc=1000, uc=1100, unr=1200),
                      hyst=0, sdrtype=0x0b))
    # discrete: drive slots (presence = offset 0), processors (presence = 7)
    for d in range(12):
        s.append(dict(kind="disc", name=f"Drive {d + 1}", entity="Disk_Drive_Bay",
                      inst=d + 2, stype="Drive_Slot", events=[0, 1, 2],
                      bits=[0] if d < 10 else [], sdrtype=0x0d))
    for cpu in (1, 2):
        s.append(dict(kind="disc", name=f"CPU{cpu} Status", entity="processor",
                      inst=cpu, stype="Processor", events=[0, 1, 7],
                      bits=[7], sdrtype=0x07))
    for psu in (1, 2):
        s.append(dict(kind="disc", name=f"PSU{psu} Redund", entity="power_supply",
                      inst=psu + 2, stype="Power_Supply", events=[0, 1, 3],
                      bits=[0], sdrtype=0x08))
    if n > len(s):
        sys.exit(f"at most {len(s)} generated sensors are defined (asked {n})")
    return s[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("outdir")
    ap.add_argument("--sensors", type=int, default=160,
                    help="generated sensors (default 160, at most %d)" % MAXN)
    a = ap.parse_args()
    if not 1 <= a.sensors <= MAXN:
        sys.exit(f"--sensors must be 1..{MAXN}")
    os.makedirs(a.outdir, exist_ok=True)
    sens = plan(a.sensors)

    sdr = open(os.path.join(HERE, "sdrs.sdrs")).read().rstrip("\n") + "\n\n"
    sdr += ("######################################################################\n"
            f"# Generated by gen-big-bmc.py: {len(sens)} more BMC (0x20) sensors.\n\n")
    emu_lines = [f"# Generated by gen-big-bmc.py: {len(sens)} more BMC sensors,",
                 "# raw readings fixed, no events."]
    for i, x in enumerate(sens):
        num = FIRST + i
        if x["kind"] == "thr":
            sdr += "\n".join(threshold_sdr(num, x["name"], x["entity"], x["inst"],
                                           x["stype"], x["unit"], x["m"], x["b"],
                                           x["r_exp"], x["nominal"], x["th"],
                                           x["hyst"])) + "\n"
            emu_lines.append(f"sensor_add 0x20 0 0x{num:02x} 0x{x['sdrtype']:02x} 0x01")
            emu_lines.append(f"sensor_set_value 0x20 0 0x{num:02x} {x['raw']} 0")
        else:
            sdr += "\n".join(discrete_sdr(num, x["name"], x["entity"], x["inst"],
                                          x["stype"], x["events"])) + "\n"
            emu_lines.append(f"sensor_add 0x20 0 0x{num:02x} 0x{x['sdrtype']:02x} 0x6f")
            for bit in x["bits"]:
                emu_lines.append(f"sensor_set_bit 0x20 0 0x{num:02x} {bit} 1 0")
    with open(os.path.join(a.outdir, "sdrs.sdrs"), "w") as f:
        f.write(sdr)

    # kcsmux.emu: the rig's, with the generated sensors before the
    # include of the generated data (FRU, device SDRs) and the mc_enables.
    emu = open(os.path.join(HERE, "kcsmux.emu")).read().split("\n")
    at = next(i for i, l in enumerate(emu) if l.startswith("include "))
    while at > 0 and emu[at - 1].startswith("#"):
        at -= 1
    emu[at:at] = emu_lines + [""]
    with open(os.path.join(a.outdir, "kcsmux.emu"), "w") as f:
        f.write("\n".join(emu))
    for name in ("fru-bmc.conf", "fru-hsbp.conf", "sel.txt", "lan.conf.in"):
        shutil.copyfile(os.path.join(HERE, name), os.path.join(a.outdir, name))
    total = sdr.count("\nsdr type ") + sdr.startswith("sdr type ")
    nsens = total - sdr.count("sdr type 18")
    print(f"{a.outdir}: {nsens} sensors ({len(sens)} generated), {total} SDRs")


if __name__ == "__main__":
    main()
