#!/usr/bin/perl
# An ESME that is not ours, for the SMPP server tests: Net::SMPP (Debian's libnet-smpp-perl) in the
# client role, one connection to 127.0.0.1. One select loop over the socket and stdin; it exits
# on stdin EOF or when its parent dies, so it never outlives the test.
#
#   perl perl-esme.pl --port N
#
# stdin: one JSON command a line:
#   {"command":"bind","mode":"transceiver","system_id":"…","password":"…"}
#   {"command":"submit","ref":"a","source":"…","destination":"…","short_message":"<hex>",
#    "data_coding":0,"esm_class":0,"registered_delivery":1,"service_type":"",
#    "message_payload":"<hex>","sar":[ref,total,seq],
#    "tlvs":{"1402":"<hex>"}}                                   (the last four optional; tlvs: vendor
#                                                                TLVs by hex tag, values in hex)
#   {"command":"query","ref":"q","message_id":"…","source":"…"}   a query_sm
#   {"command":"cancel","ref":"c","message_id":"…","source":"…","destination":"…","service_type":"…"}
#                                                                 a cancel_sm (the last two optional)
#   {"command":"answer","status":0}    how to answer the deliver_sm that follow (default 0)
#   {"command":"unbind"}
# stdout: `CONNECTED`, then one JSON object a line: every PDU received ("event":"pdu": its command,
# seq, status, the ref of the submit, query or cancel it answers, its fields and TLVs by hex tag with hex values),
# every request sent ("event":"sent") and "closed".
use strict;
use warnings;
use Getopt::Long qw(GetOptions);
use IO::Select;
use JSON::PP;
use Net::SMPP;

my %opt = (port => 2775);
GetOptions(\%opt, 'port=i') or die "perl-esme: bad arguments\n";

$SIG{__WARN__} = sub { print STDERR $_[0] unless $_[0] =~ /^(Unknown tag|premature eof|error reading)/ };
$SIG{PIPE} = 'IGNORE';
$| = 1;

my $json = JSON::PP->new->canonical;
sub emit { print $json->encode($_[0]), "\n" }

my $smpp = Net::SMPP->new_connect('127.0.0.1', port => $opt{port}, smpp_version => 0x34, async => 1)
    or die "perl-esme: cannot connect to 127.0.0.1:$opt{port}: $!\n";
print "CONNECTED\n";

my %COMMANDS = (
    0x80000000 => 'generic_nack',     0x80000001 => 'bind_receiver_resp', 0x80000002 => 'bind_transmitter_resp',
    0x80000003 => 'query_sm_resp',    0x80000008 => 'cancel_sm_resp',
    0x80000004 => 'submit_sm_resp',   0x00000005 => 'deliver_sm',         0x00000006 => 'unbind',
    0x80000006 => 'unbind_resp',      0x80000009 => 'bind_transceiver_resp', 0x00000015 => 'enquire_link',
    0x80000015 => 'enquire_link_resp', 0x80000103 => 'data_sm_resp',
);
my $select = IO::Select->new($smpp, \*STDIN);
my $stdin_buffer = '';
my $parent = getppid();
my $deliver_status = 0;
my %refs;    # seq of a submit, query or cancel => the test's ref

sub tlvs_of {
    my ($pdu) = @_;
    return { map { (sprintf('%04x', $_) => unpack('H*', $pdu->{$_})) } grep { /^\d+$/ } keys %$pdu };
}

sub finish {
    my ($why) = @_;
    emit({ event => 'closed', why => $why });
    exit 0;
}

sub control {
    my ($line) = @_;
    my $c = eval { $json->decode($line) };
    return emit({ event => 'error', message => "control line is not JSON: $line" }) unless ref $c eq 'HASH';
    my $name = $c->{command} // '';
    if ($name eq 'bind') {
        my $bind = "bind_$c->{mode}";
        my $seq = $smpp->$bind(system_id => $c->{system_id}, password => $c->{password});
        return emit({ event => 'sent', command => $bind, seq => $seq });
    }
    if ($name eq 'submit') {
        my @optional;
        push @optional, message_payload => pack('H*', $c->{message_payload}) if defined $c->{message_payload};
        if ($c->{sar}) {
            my ($ref, $total, $seq) = @{ $c->{sar} };
            push @optional, sar_msg_ref_num => pack('n', $ref), sar_total_segments => pack('C', $total),
                sar_segment_seqnum => pack('C', $seq);
        }
        for my $tag (sort keys %{ $c->{tlvs} // {} }) {
            # Net::SMPP writes a string TLV only under a name it knows: this one names the tag.
            $Net::SMPP::param_by_name{"vendor_$tag"} = hex($tag);
            push @optional, "vendor_$tag" => pack('H*', $c->{tlvs}{$tag});
        }
        my $seq = $smpp->submit_sm(
            service_type        => $c->{service_type} // '',
            source_addr_ton     => 5, source_addr_npi => 0, source_addr => $c->{source},
            dest_addr_ton       => 1, dest_addr_npi => 1, destination_addr => $c->{destination},
            esm_class           => $c->{esm_class} // 0,
            registered_delivery => $c->{registered_delivery} // 0,
            data_coding         => $c->{data_coding} // 0,
            short_message       => pack('H*', $c->{short_message} // ''),
            @optional);
        $refs{$seq} = $c->{ref};
        return emit({ event => 'sent', command => 'submit_sm', seq => $seq, ref => $c->{ref} });
    }
    if ($name eq 'query') {
        my $seq = $smpp->query_sm(message_id => $c->{message_id}, source_addr_ton => 5, source_addr_npi => 0,
            source_addr => $c->{source} // '');
        $refs{$seq} = $c->{ref};
        return emit({ event => 'sent', command => 'query_sm', seq => $seq, ref => $c->{ref} });
    }
    if ($name eq 'cancel') {
        my $seq = $smpp->cancel_sm(service_type => $c->{service_type} // '', message_id => $c->{message_id} // '',
            source_addr_ton => 5, source_addr_npi => 0, source_addr => $c->{source} // '',
            dest_addr_ton => 1, dest_addr_npi => 1, destination_addr => $c->{destination} // '');
        $refs{$seq} = $c->{ref};
        return emit({ event => 'sent', command => 'cancel_sm', seq => $seq, ref => $c->{ref} });
    }
    if ($name eq 'answer') {
        $deliver_status = $c->{status};
        return;
    }
    if ($name eq 'unbind') {
        my $seq = $smpp->unbind();
        return emit({ event => 'sent', command => 'unbind', seq => $seq });
    }
    emit({ event => 'error', message => "unknown control command '$name'" });
}

sub receive {
    my $pdu = $smpp->read_pdu() or finish('eof');
    my $command = $COMMANDS{ $pdu->{cmd} } // sprintf('0x%08x', $pdu->{cmd});
    my %entry = (event => 'pdu', command => $command, seq => $pdu->{seq}, status => $pdu->{status});
    if ($command =~ /_resp$/) {
        $entry{message_id} = $pdu->{message_id} if defined $pdu->{message_id};
        $entry{system_id} = $pdu->{system_id} if defined $pdu->{system_id};
        if ($command eq 'query_sm_resp' && $pdu->{status} == 0) {
            $entry{$_} = $pdu->{$_} for qw(final_date message_state error_code);
        }
        $entry{ref} = delete $refs{ $pdu->{seq} } if exists $refs{ $pdu->{seq} };
        emit(\%entry);
        finish('unbound') if $command eq 'unbind_resp';
        return;
    }
    if ($command eq 'deliver_sm') {
        emit({ %entry,
            source => $pdu->{source_addr}, source_ton => $pdu->{source_addr_ton},
            destination => $pdu->{destination_addr}, esm_class => $pdu->{esm_class},
            data_coding => $pdu->{data_coding}, short_message => unpack('H*', $pdu->{short_message}),
            tlvs => tlvs_of($pdu), answer => $deliver_status });
        return $smpp->deliver_sm_resp(seq => $pdu->{seq}, status => $deliver_status, message_id => '');
    }
    emit(\%entry);
    if ($command eq 'enquire_link') {
        $smpp->enquire_link_resp(seq => $pdu->{seq});
    } elsif ($command eq 'unbind') {
        $smpp->unbind_resp(seq => $pdu->{seq});
        finish('unbound by the server');
    }
}

while (1) {
    exit 0 if getppid() != $parent;
    for my $fh ($select->can_read(0.25)) {
        if (fileno($fh) == fileno(STDIN)) {
            my $read = sysread(STDIN, $stdin_buffer, 65536, length $stdin_buffer);
            exit 0 unless $read;
            control($1) while $stdin_buffer =~ s/^([^\n]*)\n//;
        } else {
            receive();
        }
    }
}
